// End-to-end checks of the trace lab: real V8, HotSpot and Groovy logs opened from the gallery,
// a dropped file, a pasted log, progress and Cancel on a big log.
//
// The expected figures come from the native CLI's `blast trace --replay --format json` of the
// same committed files (run here; it reads the `NAME.classes` beside each log, as the page fetches
// it with a gallery sample), or from the log files themselves (their lines counted
// here), never typed in. `E2E_ONLY='^trace lab'` runs just these. One check captures a ~100 MB
// V8 log with node (the `v8-proto-write-huge` run of `scripts/capture-traces.sh --big`,
// probes/traces/README.md) and prints the figures of reading it.
import { execFileSync } from 'node:child_process';
import os from 'node:os';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { axeViolations } from './access.mjs';
import { expect, pasteScenario, shoot, showSection, withFreshPage } from './common.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(HERE, '..', '..', '..');
const LOGS = path.join(ROOT, 'probes', 'traces', 'logs');

/** The CLI's JSON summary of committed samples, by file name (one cargo run for all). */
let cli;
function fromCli(name) {
  if (!cli) {
    const names = ['v8-proto-write', 'v8-proto-chain', 'hotspot-cha-break', 'groovy-same-class-churn'];
    const files = names.map((n) => path.join(LOGS, `${n}.log`));
    const out = execFileSync('cargo', ['run', '-q', '--offline', '-p', 'blast-cli', '--', 'trace', '--replay', '--format', 'json', ...files], { cwd: ROOT, maxBuffer: 64 << 20 });
    cli = Object.fromEntries(JSON.parse(out).map((s, i) => [names[i], s]));
  }
  return cli[name];
}

/** The mutations with a blast radius, as the CLI lists them. */
const radii = (s) => s.blast_radius.filter((r) => r.radius.invalidations > 0);

const POLICY_NAMES = { Global: 'global', Exact: 'exact', Hierarchy: 'hierarchy', HierarchyV3: 'hierarchy-v3', Ideal: 'ideal' };

/** F1 of precision and recall of a CLI total. */
function f1(t) {
  const p = t.hits + t.extra === 0 ? 1 : t.hits / (t.hits + t.extra);
  const r = t.hits + t.missed === 0 ? 1 : t.hits / (t.hits + t.missed);
  return p + r === 0 ? 0 : (2 * p * r) / (p + r);
}

/** The policies with the best F1 over the trace (the CLI's "behaved like"), from its totals. */
function behavedLike(replay) {
  const scores = replay.totals.map(f1);
  const best = Math.max(...scores);
  return replay.policies.filter((_, i) => scores[i] === best).map((p) => POLICY_NAMES[p] ?? p);
}

/** The replayed policies by F1 over the trace, best first (stable), from the CLI's totals. */
function ranked(replay) {
  return replay.policies.map((p, i) => ({ name: POLICY_NAMES[p] ?? p, f1: f1(replay.totals[i]) })).sort((a, b) => b.f1 - a.f1);
}

/** The replay table's rows as the page shows them: policy, F1 (NaN for "n/a"), and its text. */
const replayRows = (page) =>
  page.$$eval('#trace-replay tbody tr', (trs) => trs.map((tr) => ({ policy: tr.dataset.policy, f1: Number(tr.querySelector('[data-label="F1"]')?.textContent ?? NaN), text: tr.textContent })));

/** Open a gallery sample and wait for its view. */
async function openSample(page, id) {
  await page.click(`tr[data-trace="${id}"] button.trace-open`);
  await page.waitForFunction((id) => document.querySelector('#trace-view .trace-head code')?.textContent === `${id}.log`, id, { timeout: 60_000 });
}

/** Each fan-out row as the page shows it. */
const fanOutRows = (page) =>
  page.$$eval('#trace-fanout tbody tr', (trs) =>
    trs.map((tr) => ({
      line: Number(tr.dataset.line),
      fan: tr.querySelector('.trace-fan strong').textContent,
      kinds: tr.querySelector('.trace-fan .muted').textContent,
      exact: Number(tr.cells[3].textContent),
      byOrder: Number(tr.cells[4].textContent),
      text: tr.textContent,
      witness: tr.querySelector('.trace-witness')?.textContent ?? '',
    })),
  );

/** "3 call sites and 4 compiled units" as the page words a radius. */
function words(sites, units) {
  const n = (k, noun) => `${k} ${noun}${k === 1 ? '' : 's'}`;
  const parts = [];
  if (sites > 0) parts.push(n(sites, 'call site'));
  if (units > 0) parts.push(n(units, 'compiled unit'));
  return parts.length ? parts.join(' and ') : 'nothing';
}

/** Every row's line, fan-out and attribution equal the CLI's, in order. */
function sameAsCli(rows, summary) {
  const want = radii(summary);
  expect(rows.length === want.length, `${rows.length} fan-out rows, the CLI lists ${want.length}`);
  want.forEach((r, i) => {
    const got = rows[i];
    const fan = words(r.radius.sites.length, r.radius.units.length);
    expect(got.line === r.mutation.at.line && got.fan === fan, `row ${i}: line ${got.line} "${got.fan}", the CLI: line ${r.mutation.at.line} "${fan}"`);
    expect(got.exact === r.radius.exact && got.byOrder === r.radius.by_order, `row ${i}: exact/by order ${got.exact}/${got.byOrder}, the CLI ${r.radius.exact}/${r.radius.by_order}`);
  });
}

/** Long tasks on the page from now on (`window.__longTasks`, ms). */
async function watchLongTasks(page) {
  await page.evaluate(() => {
    window.__longTasks = [];
    new PerformanceObserver((list) => list.getEntries().forEach((e) => window.__longTasks.push(e.duration))).observe({ type: 'longtask' });
  });
}

/** Make a blob in the page (`make(arg)`), kept as `window.__blob`. */
async function makeBlob(page, make, arg) {
  await page.evaluate(
    async ({ make, arg }) => {
      // eslint-disable-next-line no-new-func
      window.__blob = await new Function('arg', `return (${make})(arg)`)(arg);
    },
    { make: make.toString(), arg },
  );
}

/** Drop `window.__blob` as a file named `name` on `selector`. */
async function dropBlob(page, selector, name) {
  await page.evaluate(
    ({ selector, name }) => {
      const blob = window.__blob;
      const data = new DataTransfer();
      data.items.add(new File([blob], name));
      document.querySelector(selector).dispatchEvent(new DragEvent('drop', { dataTransfer: data, bubbles: true, cancelable: true }));
    },
    { selector, name },
  );
}

/** Drop a blob made by `make(arg)` in the page as a file named `name` on `selector`. */
async function dropFile(page, selector, name, make, arg) {
  await makeBlob(page, make, arg);
  await dropBlob(page, selector, name);
}


/**
 * The V8 sample's invalidations by clock (µs), counted from the log as the reader counts them:
 * every code-deopt, and every IC change out of a linked state (not X, not 0).
 */
function v8InvalidationTimes(name) {
  const times = [];
  for (const line of fs.readFileSync(path.join(LOGS, `${name}.log`), 'utf8').split('\n')) {
    const f = line.split(',');
    if (f[0] === 'code-deopt') times.push(Number(f[1]));
    else if (f[0].endsWith('IC') && f.length > 5 && !['X', '0'].includes(f[5])) times.push(Number(f[2]));
  }
  return times;
}

/** The timeline as the page shows it: its window, axis labels and bars' total. */
const timelineShown = (page) =>
  page.$eval('#trace-timeline', (el) => {
    const axis = el.querySelector('.trace-timeline-axis');
    return {
      start: Number(axis.dataset.start),
      end: Number(axis.dataset.end),
      labels: [...axis.querySelectorAll('span')].map((s) => s.textContent),
      bars: [...el.querySelectorAll('rect[data-n]')].reduce((n, r) => n + Number(r.dataset.n), 0),
      markup: el.innerHTML,
    };
  });

/** A label's value in µs from the trace's start ("1.23 ms", "450 µs"). */
function labelUs(label) {
  const m = /^([\d.\u2009]+) (ms|µs)$/.exec(label);
  if (!m) return NaN;
  const v = Number(m[1].replaceAll('\u2009', ''));
  return m[2] === 'ms' ? v * 1000 : v;
}

export const checks = [
  {
    name: "trace lab: the V8 sample's timeline zooms in around its densest part in the worker, its axis labels the window and its bars count the invalidations inside it, Whole trace shows the original again, and a drag across it zooms to the window dragged over",
    run: async ({ browser, baseUrl }) =>
      withFreshPage(browser, baseUrl, 'tr[data-trace]', async (page) => {
        await openSample(page, 'v8-proto-write');
        const times = v8InvalidationTimes('v8-proto-write');
        expect(times.length === fromCli('v8-proto-write').invalidations, `${times.length} invalidations counted in the log, the CLI reads ${fromCli('v8-proto-write').invalidations}`);
        const whole = await timelineShown(page);
        expect(whole.bars === times.length, `whole trace: bars total ${whole.bars}, ${times.length} invalidations`);
        expect(await page.isDisabled('#trace-zoom-whole'), 'Whole trace is disabled when the whole trace is shown');
        // By keyboard: focus Zoom in and press Enter.
        await page.focus('#trace-zoom-in');
        await page.keyboard.press('Enter');
        await page.waitForFunction((m) => document.querySelector('#trace-timeline').innerHTML !== m, whole.markup, { timeout: 30_000 });
        const zoomed = await timelineShown(page);
        expect(zoomed.start >= whole.start && zoomed.end <= whole.end && zoomed.end - zoomed.start < whole.end - whole.start, `window ${zoomed.start}..${zoomed.end} in ${whole.start}..${whole.end}`);
        expect(JSON.stringify(zoomed.labels) !== JSON.stringify(whole.labels), `labels ${zoomed.labels} unchanged`);
        zoomed.labels.forEach((l, i) => {
          const want = [zoomed.start, zoomed.end][i] - whole.start;
          expect(Math.abs(labelUs(l) - want) <= Math.max(1, want * 0.006), `label ${l} for ${want} µs from the trace's start`);
        });
        const inside = times.filter((t) => t >= zoomed.start && t <= zoomed.end).length;
        expect(zoomed.bars === inside && inside < times.length, `zoomed: bars total ${zoomed.bars}, ${inside} invalidations inside the window`);
        const axe = await axeViolations(page);
        expect(axe.all.length === 0, `axe with the timeline zoomed: ${JSON.stringify(axe.all)}`);
        await page.click('#trace-zoom-whole');
        await page.waitForFunction((m) => document.querySelector('#trace-timeline').innerHTML === m, whole.markup, { timeout: 30_000 });
        expect(await page.isDisabled('#trace-zoom-out'), 'back to the whole trace: nothing to zoom out of');
        // A drag across the middle half of the drawing zooms to that window, shown while dragged.
        const box = await page.locator('#trace-timeline .trace-drag').boundingBox();
        const y = box.y + box.height / 2;
        await page.mouse.move(box.x + box.width * 0.25, y);
        await page.mouse.down();
        await page.mouse.move(box.x + box.width * 0.75, y, { steps: 4 });
        expect((await page.locator('#trace-drag-selection').count()) === 1, 'the window dragged over is shown');
        await page.mouse.up();
        await page.waitForFunction((m) => document.querySelector('#trace-timeline .trace-timeline-axis')?.dataset.start !== String(m), whole.start, { timeout: 30_000 });
        const dragged = await timelineShown(page);
        const span = whole.end - whole.start;
        expect(
          Math.abs(dragged.start - (whole.start + span * 0.25)) <= span * 0.02 && Math.abs(dragged.end - (whole.start + span * 0.75)) <= span * 0.02,
          `dragged over the middle half of ${whole.start}..${whole.end}: window ${dragged.start}..${dragged.end}`,
        );
        const insideDrag = times.filter((t) => t >= dragged.start && t <= dragged.end).length;
        expect(dragged.bars === insideDrag, `dragged: bars total ${dragged.bars}, ${insideDrag} invalidations inside the window`);
        const axeDrag = await axeViolations(page);
        expect(axeDrag.all.length === 0, `axe after a drag: ${JSON.stringify(axeDrag.all)}`);
        await page.click('#trace-zoom-whole');
        await page.waitForFunction((m) => document.querySelector('#trace-timeline .trace-timeline-axis')?.dataset.start === String(m), whole.start, { timeout: 30_000 });
      }),
  },
  {
    name: "trace lab: with the V8 sample open, the blast view draws its call sites by file and function, the first prototype write's sites as many as the CLI's fan-out, and the why panel names that write's line and each policy's replay for one of them",
    run: async ({ browser, baseUrl }) =>
      withFreshPage(browser, baseUrl, 'tr[data-trace]', async (page) => {
        await openSample(page, 'v8-proto-write');
        const summary = fromCli('v8-proto-write');
        const first = radii(summary)[0];
        const line = first.mutation.at.line;
        await page.waitForSelector('#trace-blast li.agg-site', { timeout: 30_000 });
        const drawn = await page.$$eval('#trace-blast li.agg-site', (lis) => lis.map((li) => ({ site: li.dataset.site, lines: li.dataset.lines.split(' ').map(Number) })));
        const hit = drawn.filter((d) => d.lines.includes(line));
        const want = first.radius.sites.length + first.radius.units.length;
        expect(hit.length === want, `${hit.length} sites of the blast view name line ${line}, the CLI's fan-out is ${want}`);
        const groups = await page.$$eval('#trace-blast li.trace-group', (lis) => lis.map((li) => li.dataset.group));
        for (const g of first.groups) expect(groups.includes(g.name), `group ${g.name} not drawn: ${groups}`);
        await page.click(`#trace-blast li.agg-site[data-site="${hit[0].site}"] button`);
        await page.waitForSelector(`#why-trace tr[data-line="${line}"]`, { timeout: 10_000 });
        const row = await page.$eval(`#why-trace tr[data-line="${line}"]`, (tr) => ({ text: tr.textContent, verdicts: [...tr.querySelectorAll('.badge')].map((b) => b.textContent) }));
        expect(row.text.includes(first.label.split(' at ')[0]), `why row: ${row.text}, the CLI's label ${first.label}`);
        const policies = fromCli('v8-proto-write').replay.Ok.policies.length;
        expect(row.verdicts.length === policies && row.verdicts.every((v) => ['necessary', 'missed'].includes(v)), `verdicts ${row.verdicts} for ${policies} policies`);
        expect((await page.inputValue('#why-site')) === hit[0].site, 'the why panel picker names the site');
        const axe = await axeViolations(page);
        expect(axe.all.length === 0, `axe with a trace in the blast view: ${JSON.stringify(axe.all)}`);
        // Closed: the blast view draws the scenario again.
        await page.click('#trace-close');
        await page.waitForSelector('#trace-blast', { state: 'detached', timeout: 10_000 });
      }),
  },
  {
    name: 'trace lab: the V8 sample from the gallery fans each Point.prototype write out to the sites whose deopts are dependency-change, as the CLI does; its CSV, its too-big-for-a-link note, no axe violation, its derived scenario one Undo away',
    run: async ({ browser, baseUrl, log }) =>
      withFreshPage(browser, baseUrl, 'tr[data-trace]', async (page) => {
        const t0 = Date.now();
        await openSample(page, 'v8-proto-write');
        const mb = (fs.statSync(path.join(LOGS, 'v8-proto-write.log')).size / 1e6).toFixed(2);
        log(`# trace lab: v8-proto-write (${mb} MB) from the gallery to its view in ${Date.now() - t0} ms`);
        const summary = fromCli('v8-proto-write');
        const rows = await fanOutRows(page);
        sameAsCli(rows, summary);
        // Every dependency-change deopt in the file is in a prototype write's fan-out, and no
        // Counter function (the program's other class) is.
        const inFile = fs.readFileSync(path.join(LOGS, 'v8-proto-write.log'), 'utf8').split('\n').filter((l) => l.startsWith('code-deopt,') && l.includes(',dependency-change,')).length;
        const shown = rows.reduce((n, r) => n + Number(/(\d+) dependency-change/.exec(r.kinds)?.[1] ?? 0), 0);
        expect(inFile > 0 && shown === inFile, `${shown} dependency-change deopts in the fan-out, ${inFile} in the log`);
        expect(rows.every((r) => r.text.includes('prototype-write') && r.text.includes('Point.') && !r.text.includes('Counter')), `rows: ${JSON.stringify(rows.map((r) => r.text))}`);
        const like = await page.$$eval('#trace-behaved-like .policy-badge', (bs) => bs.map((b) => b.textContent));
        const want = behavedLike(summary.replay.Ok);
        expect(JSON.stringify(like) === JSON.stringify(want), `behaved like ${like}, the CLI's totals say ${want}`);
        expect((await page.locator('#trace-timeline line.tl-mutation').count()) === rows.length, 'a timeline marker per mutation with a fan-out');
        const runtime = await page.textContent('#trace-runtime');
        expect(runtime.startsWith('V8'), `runtime: ${runtime}`);
        // The lab with a trace on screen passes axe-core as the rest of the page does.
        await page.evaluate(() => document.querySelector('.trace-per-mutation')?.setAttribute('open', ''));
        const axe = await axeViolations(page);
        log(`# axe, trace lab with v8-proto-write open: ${axe.all.length} violations${axe.all.length ? ': ' + axe.all.map((v) => `${v.id} (${v.impact}) ${v.nodes.slice(0, 2)}`).join(', ') : ''}`);
        expect(axe.all.length === 0, `axe: ${JSON.stringify(axe.all)}`);

        // The fan-out exported as CSV: a row per mutation and group.
        const [download] = await Promise.all([page.waitForEvent('download'), page.click('#trace-fanout-csv')]);
        const csv = fs.readFileSync(await download.path(), 'utf8').trim().split('\n');
        expect(csv[0].startsWith('log,line,kind,target') && csv.length === 1 + rows.length, `CSV: ${csv.length} lines for ${rows.length} rows`);

        // A log too big for a link says so and offers the derived scenario's link.
        await page.click('#trace-share');
        await page.waitForSelector('#trace-link-refused', { timeout: 10_000 });
        expect((await page.inputValue('#trace-scenario-link')).includes('#s=2.'), 'the derived scenario link is offered');

        // The derived scenario opens in the editor, one Undo away from what was there.
        const before = await page.inputValue('#dsl-text');
        await page.click('#trace-open-scenario');
        await page.waitForFunction(() => document.querySelector('#dsl-text').value.startsWith('scenario "replay of a trace"'), null, { timeout: 30_000 });
        await page.click('#undo');
        await page.waitForFunction((t) => document.querySelector('#dsl-text').value === t, before, { timeout: 10_000 });
      }),
  },
  {
    name: 'trace lab: the HotSpot sample names the witness class whose load broke each assumption and the units made not entrant; a link carries the small log whole with its class tree and opens it replayed',
    run: async ({ browser, baseUrl }) =>
      withFreshPage(browser, baseUrl, 'tr[data-trace]', async (page) => {
        await openSample(page, 'hotspot-cha-break');
        const rows = await fanOutRows(page);
        sameAsCli(rows, fromCli('hotspot-cha-break'));
        const witnesses = [...new Set([...fs.readFileSync(path.join(LOGS, 'hotspot-cha-break.log'), 'utf8').matchAll(/<dependency_failed [^>]*witness='([^']+)'/g)].map((m) => m[1]))];
        expect(witnesses.length > 0, 'the log names a witness');
        for (const w of witnesses) {
          expect(rows.some((r) => r.witness.includes(w)), `witness ${w} not shown: ${JSON.stringify(rows.map((r) => r.witness))}`);
        }
        // Replayed over compiled code units with the class tree the gallery fetched beside the
        // log: the verdict is the CLI's, hierarchy-v3 does not apply, and there is no scenario.
        const replay = fromCli('hotspot-cha-break').replay.Ok;
        expect(replay, `the CLI replays it: ${JSON.stringify(fromCli('hotspot-cha-break').replay)}`);
        expect((await page.getAttribute('#trace-behaved-like', 'data-subject')) === 'units', 'the replay is over code units');
        const like = await page.$$eval('#trace-behaved-like .policy-badge', (bs) => bs.map((b) => b.textContent));
        expect(JSON.stringify(like) === JSON.stringify(behavedLike(replay)), `behaved like ${like}, the CLI's totals say ${behavedLike(replay)}`);
        const said = await page.textContent('#trace-behaved-like');
        expect(said.includes(`${replay.units.length} code units`), `replayed: ${said}`);
        const table = await replayRows(page);
        const na = Object.values(POLICY_NAMES).filter((p) => !replay.policies.map((q) => POLICY_NAMES[q] ?? q).includes(p));
        expect(na.length > 0 && na.every((p) => table.find((r) => r.policy === p)?.text.includes('n/a')), `n/a rows for ${na}: ${JSON.stringify(table)}`);
        expect((await page.locator('#trace-open-scenario').count()) === 0, 'no derived scenario for a replay over code units');

        // A small log travels whole in a link, and the link opens it again.
        await page.click('#trace-share');
        await page.waitForSelector('#trace-link-url', { timeout: 10_000 });
        const link = await page.inputValue('#trace-link-url');
        expect(link.includes('#t=1.') && link.includes('&c=1.'), `link with the log and its class tree: ${link.slice(0, 80)}`);
        const other = await page.context().newPage();
        await other.goto(link, { waitUntil: 'load' });
        await other.waitForFunction(() => document.querySelector('#trace-view .trace-head code')?.textContent === 'hotspot-cha-break.log', null, { timeout: 60_000 });
        const again = await fanOutRows(other);
        expect(JSON.stringify(again) === JSON.stringify(rows), 'the linked log shows the same fan-out');
        // The class tree came with it: the linked log is replayed as the gallery's was.
        await other.waitForSelector('#trace-behaved-like[data-subject="units"]', { timeout: 30_000 });
        const linkedLike = await other.$$eval('#trace-behaved-like .policy-badge', (bs) => bs.map((b) => b.textContent));
        expect(JSON.stringify(linkedLike) === JSON.stringify(like), `the linked log behaved like ${linkedLike}, the gallery's ${like}`);
        await other.close();
      }),
  },
  {
    name: 'trace lab: the V8 prototype-chain sample, replayed with its class tree, ranks hierarchy first as the CLI does',
    run: async ({ browser, baseUrl }) =>
      withFreshPage(browser, baseUrl, 'tr[data-trace]', async (page) => {
        await openSample(page, 'v8-proto-chain');
        const summary = fromCli('v8-proto-chain');
        sameAsCli(await fanOutRows(page), summary);
        const want = ranked(summary.replay.Ok);
        expect(want[0].name === 'hierarchy', `the CLI ranks ${want.map((w) => w.name)}`);
        const rows = (await replayRows(page)).filter((r) => !Number.isNaN(r.f1));
        const best = Math.max(...rows.map((r) => r.f1));
        const top = rows.filter((r) => r.f1 === best).map((r) => r.policy);
        const wantTop = want.filter((w) => w.f1 === want[0].f1).map((w) => w.name);
        expect(JSON.stringify(top) === JSON.stringify(wantTop), `the page ranks ${top} first, the CLI ${wantTop}`);
        const like = await page.$$eval('#trace-behaved-like .policy-badge', (bs) => bs.map((b) => b.textContent));
        expect(like[0] === 'hierarchy' && JSON.stringify(like) === JSON.stringify(behavedLike(summary.replay.Ok)), `behaved like ${like}`);
      }),
  },
  {
    name: 'trace lab: a HotSpot log dropped with its class tree is replayed; dropped alone it says what is missing, and its tree dropped afterwards replays it',
    run: async ({ browser, baseUrl }) =>
      withFreshPage(browser, baseUrl, 'tr[data-trace]', async (page) => {
        const drop = (names) =>
          page.evaluate(async (names) => {
            const data = new DataTransfer();
            for (const n of names) data.items.add(new File([await (await fetch(`logs/${n}`)).blob()], n));
            document.querySelector('#trace-lab').dispatchEvent(new DragEvent('drop', { dataTransfer: data, bubbles: true, cancelable: true }));
          }, names);
        const like = fromCli('hotspot-cha-break').replay.Ok;
        const shownLike = () => page.$$eval('#trace-behaved-like .policy-badge', (bs) => bs.map((b) => b.textContent).join(' = '));
        // The tree first, the log second: the order does not matter.
        await drop(['hotspot-cha-break.classes', 'hotspot-cha-break.log']);
        await page.waitForSelector('#trace-behaved-like[data-subject="units"]', { timeout: 60_000 });
        expect((await shownLike()) === behavedLike(like).join(' = '), `behaved like ${await shownLike()}`);
        await page.click('#trace-close');
        await drop(['hotspot-cha-break.log']);
        await page.waitForSelector('#trace-no-replay', { timeout: 60_000 });
        const missing = await page.textContent('#trace-no-replay');
        expect(missing.includes('hotspot-cha-break.classes') && missing.includes('docs/TRACES.md'), `no replay: ${missing}`);
        await drop(['hotspot-cha-break.classes']);
        await page.waitForSelector('#trace-behaved-like[data-subject="units"]', { timeout: 60_000 });
        expect((await shownLike()) === behavedLike(like).join(' = '), `behaved like ${await shownLike()} after the tree`);
      }),
  },
  {
    name: 'trace lab: the Groovy sample relinks every site after each metaclass change, as the CLI counts them',
    run: async ({ browser, baseUrl }) =>
      withFreshPage(browser, baseUrl, 'tr[data-trace]', async (page) => {
        await openSample(page, 'groovy-same-class-churn');
        const summary = fromCli('groovy-same-class-churn');
        const rows = await fanOutRows(page);
        sameAsCli(rows, summary);
        const changes = fs.readFileSync(path.join(LOGS, 'groovy-same-class-churn.log'), 'utf8').split('\n').filter((l) => l.startsWith('METACLASS_CHANGE ')).length;
        expect(rows.length > 0 && rows.length <= changes, `${rows.length} rows, ${changes} metaclass changes in the log`);
        expect(rows.every((r) => r.text.includes('metaclass-change') && /\d+ relink/.test(r.kinds)), `rows: ${JSON.stringify(rows.map((r) => r.kinds))}`);
        const like = await page.$$eval('#trace-behaved-like .policy-badge', (bs) => bs.map((b) => b.textContent));
        expect(JSON.stringify(like) === JSON.stringify(behavedLike(summary.replay.Ok)), `behaved like ${like}`);
      }),
  },
  {
    name: 'trace lab: a dropped log opens in the lab, a dropped scenario in the editor',
    run: async ({ browser, baseUrl }) =>
      withFreshPage(browser, baseUrl, 'tr[data-trace]', async (page) => {
        const fetchSample = async (url) => (await fetch(url)).blob();
        await dropFile(page, '#trace-lab', 'dropped.log', fetchSample, 'logs/groovy-unrelated-churn.log');
        await page.waitForFunction(() => document.querySelector('#trace-view .trace-head code')?.textContent === 'dropped.log', null, { timeout: 60_000 });
        const scenario = 'scenario "dropped"\nclass A { m }\nsite s = A.m\nop { loop 10 { call s } }\n';
        await dropFile(page, 'main', 'dropped.blast', (text) => new Blob([text]), scenario);
        await page.waitForFunction(() => document.querySelector('#dsl-text').value.startsWith('scenario "dropped"'), null, { timeout: 30_000 });
      }),
  },
  {
    name: 'trace lab: a pasted malformed log shows its count of lines not understood and the first one with its line number',
    run: async ({ browser, baseUrl }) =>
      withFreshPage(browser, baseUrl, '#trace-paste', async (page) => {
        const good = fs.readFileSync(path.join(LOGS, 'v8-proto-write.log'), 'utf8').split('\n').slice(0, 200);
        const junk = ['this is not a V8 line', 'neither, is this', '<oops>'];
        const text = [...good.slice(0, 100), ...junk, ...good.slice(100)].join('\n');
        await page.evaluate((text) => {
          const data = new DataTransfer();
          data.setData('text/plain', text);
          document.querySelector('#trace-paste').dispatchEvent(new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true }));
        }, text);
        await page.waitForSelector('#trace-not-understood', { timeout: 30_000 });
        const said = await page.textContent('#trace-not-understood');
        expect(said.includes(`${junk.length} lines not understood, first at 101: ${junk[0]}`), `said: ${said}`);
        // Not understood lines never stop the reading: the rest of the log is read.
        expect((await page.textContent('#trace-runtime')).startsWith('V8'), 'read as V8');
        // Text no runtime wrote says so.
        await page.evaluate(() => {
          const data = new DataTransfer();
          data.setData('text/plain', 'hello\nworld\n');
          document.querySelector('#trace-paste').dispatchEvent(new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true }));
        });
        await page.waitForSelector('#trace-unknown-format', { timeout: 30_000 });
      }),
  },
  {
    name: 'trace lab: a log pasted into the scenario editor opens in the lab, and the scenario stays',
    run: async ({ browser, baseUrl }) =>
      withFreshPage(browser, baseUrl, '#dsl-text', async (page) => {
        const before = await page.inputValue('#dsl-text');
        await pasteScenario(page, fs.readFileSync(path.join(LOGS, 'groovy-plugin-registry.log'), 'utf8'));
        await page.waitForFunction(() => document.querySelector('#trace-view .trace-head code')?.textContent === 'the pasted log', null, { timeout: 60_000 });
        expect((await page.textContent('#trace-runtime')).startsWith('Groovy'), 'read as Groovy');
        expect((await page.inputValue('#dsl-text')) === before, 'the scenario text is unchanged');
      }),
  },
  {
    name: 'trace lab: a 30 MB log shows its progress, Cancel stops it, and read to the end it shows its view; figures printed',
    run: async ({ browser, baseUrl, log }) =>
      withFreshPage(browser, baseUrl, 'tr[data-trace]', async (page) => {
        const big = async (url) => {
          const one = await (await fetch(url)).arrayBuffer();
          return new Blob(Array.from({ length: Math.ceil((30 << 20) / one.byteLength) }, () => one));
        };
        await makeBlob(page, big, 'logs/v8-proto-write.log');
        await dropBlob(page, '#trace-lab', 'big.log');
        await page.waitForSelector('#trace-progress progress', { timeout: 30_000 });
        await page.waitForFunction(() => Number(document.querySelector('#trace-progress progress')?.value) > 0, null, { timeout: 30_000 });
        await page.click('#trace-cancel');
        await page.waitForSelector('#trace-progress', { state: 'detached', timeout: 10_000 });
        await page.waitForTimeout(500);
        expect((await page.locator('#trace-view').count()) === 0 && (await page.locator('#trace-progress').count()) === 0, 'cancelled: no view, no progress');

        await watchLongTasks(page);
        const t0 = Date.now();
        await dropBlob(page, '#trace-lab', 'big.log');
        await page.waitForSelector('#trace-view', { timeout: 120_000 });
        const ms = Date.now() - t0;
        const tasks = await page.evaluate(() => window.__longTasks);
        const mb = Number((await page.textContent('#trace-counts')).split(' bytes')[0].replace(/\D/g, '')) / 1e6;
        log(`# trace lab: ${mb.toFixed(1)} MB V8 log (the sample repeated) to its view in ${ms} ms; ${tasks.length} long tasks on the page, longest ${Math.max(0, ...tasks).toFixed(0)} ms`);
        expect(mb > 29, `read ${mb} MB`);
        await showSection(page, '#trace-lab');
        await shoot(page, 'trace-lab-big');
      }),
  },
  {
    name: 'trace lab: a ~100 MB V8 log captured now with node opens to its view with its facts; size, time to the first view, longest task and page memory printed',
    run: async ({ browser, baseUrl, log }) => {
      // The capture script's `v8-proto-write-huge`: Point's prototype written 1,020 times and
      // Counter's 660, full map details (a prototype stops taking map transitions after ~1,016
      // properties, so one prototype's log stops at ~75 MB).
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'blast-huge-'));
      const file = path.join(dir, 'v8-proto-write-huge.log');
      try {
        const c0 = Date.now();
        execFileSync('node', ['--log-deopt', '--log-ic', '--log-maps', '--log-code', `--logfile=${file}`, '--no-logfile-per-isolate',
          path.join(ROOT, 'probes', 'traces', 'node', 'proto-write.js'), '1120000', '1000', '660'], { cwd: dir, stdio: 'ignore', timeout: 120_000 });
        const bytes = fs.statSync(file).size;
        log(`# trace lab: captured ${(bytes / 1e6).toFixed(1)} MB of V8 log with node ${process.version} in ${Date.now() - c0} ms`);
        const cli = JSON.parse(execFileSync('cargo', ['run', '-q', '--offline', '-p', 'blast-cli', '--', 'trace', '--format', 'json', file], { cwd: ROOT, maxBuffer: 64 << 20 }))[0];
        const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
        // The page's wasm memories, as they are instantiated (its heap is not in the JS heap).
        await context.addInitScript(() => {
          window.__wasmMemories = [];
          const keep = (r) => {
            const exports = (r.instance ?? r).exports;
            for (const v of Object.values(exports ?? {})) if (v instanceof WebAssembly.Memory) window.__wasmMemories.push(v);
            return r;
          };
          const [streaming, plain] = [WebAssembly.instantiateStreaming, WebAssembly.instantiate];
          WebAssembly.instantiateStreaming = (...a) => streaming.apply(WebAssembly, a).then(keep);
          WebAssembly.instantiate = (...a) => plain.apply(WebAssembly, a).then(keep);
        });
        const page = await context.newPage();
        const errors = [];
        page.on('pageerror', (e) => errors.push(String(e)));
        try {
          await page.goto(baseUrl, { waitUntil: 'load', timeout: 60_000 });
          await page.waitForSelector('#trace-file', { state: 'attached', timeout: 30_000 });
          const cdp = await context.newCDPSession(page);
          await cdp.send('Performance.enable');
          await watchLongTasks(page);
          // The page's memory while the log is read: sampled every 100 ms, the highest kept.
          await page.evaluate(() => {
            window.__peak = 0;
            window.__sampler = setInterval(() => {
              const wasm = window.__wasmMemories.reduce((n, m) => n + m.buffer.byteLength, 0);
              window.__peak = Math.max(window.__peak, (performance.memory?.usedJSHeapSize ?? 0) + wasm);
            }, 100);
          });
          const t0 = Date.now();
          await page.setInputFiles('#trace-file', file);
          await page.waitForFunction(() => document.querySelector('#trace-view .trace-head code')?.textContent === 'v8-proto-write-huge.log', null, { timeout: 300_000 });
          const ms = Date.now() - t0;
          const longest = Math.max(0, ...(await page.evaluate(() => window.__longTasks)));
          const peak = await page.evaluate(() => { clearInterval(window.__sampler); return window.__peak; });
          const metrics = Object.fromEntries((await cdp.send('Performance.getMetrics')).metrics.map((m) => [m.name, m.value]));
          const wasm = await page.evaluate(() => window.__wasmMemories.reduce((n, m) => n + m.buffer.byteLength, 0));
          const now = metrics.JSHeapUsedSize + wasm;
          log(`# trace lab: ${(bytes / 1e6).toFixed(1)} MB V8 log (v8-proto-write-huge) to its first view in ${ms} ms (target 10,000); longest task on the page ${longest.toFixed(0)} ms (target 50); page memory ${(now / 1e6).toFixed(0)} MB after (JS heap ${(metrics.JSHeapUsedSize / 1e6).toFixed(0)} MB + wasm ${(wasm / 1e6).toFixed(0)} MB), ${(peak / 1e6).toFixed(0)} MB at most while read = ${(Math.max(peak, now) / bytes).toFixed(2)}x the log (target < 3x)`);
          // Its facts: the bytes and the mutations the CLI reads in it.
          const counts = await page.textContent('#trace-counts');
          expect(counts.split(' bytes')[0].replace(/\D/g, '') === String(cli.bytes), `counts "${counts}", the CLI reads ${cli.bytes} bytes`);
          const rows = (await page.locator('#trace-fanout tbody tr').count());
          expect(rows > 0, 'a fan-out is shown');
          expect((await page.locator('#trace-blast li.agg-site').count()) > 0, 'the blast view draws its sites');
          expect(errors.length === 0, `page errors: ${errors.join('; ')}`);
        } finally {
          await context.close();
        }
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    },
  },
];
