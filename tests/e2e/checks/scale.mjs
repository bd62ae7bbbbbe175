// Big and hostile scenarios: paste a 10^5-site world and a
// 2,000 x 2,000 one, open a share link with a 5,000-deep class chain and one with
// the deepest chain a link may carry, then reload. A PerformanceObserver records long tasks
// in the page; each check prints its figures (longest task, first paint after the paste).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, freshPage, pasteScenario, world } from './common.mjs';
import { longTaskSummary, longestTask, mainThreadCompiles, tasksOnPageClock, waitedForCore } from './trace.mjs';

/** The most CPU time one main-thread task may take during a 10^5-site paste (the target:
 *  50 ms). Was a 75 ms regression ceiling while the split paste measured 27-49 ms; with the
 *  render after the edit, the aggregated view's first render and the lanes' first update split
 *  or cut, every task measured 24-29 ms at load 4-7. */
const PASTE_CPU_CEILING_MS = 50;
/** The same for playing the pasted world (Step, Reset, Run). Measured once a
 *  Reset kept its rows and the lanes' updates were decoded in steps: every task 18-24 ms CPU
 *  at load 5-9 (was up to 90). On 2026-12-06 a task had crept back to 56-70 ms (a Reset's
 *  answer restyling the whole blast view, the replaced views freed in the render) and the
 *  paste's autosave was one 35 ms task: now 16-27 ms pasting and 16-22 playing (docs/PERFORMANCE.md). */
const PLAY_CPU_CEILING_MS = 50;
/** Chromium trace categories whose `RunTask` events carry each main-thread task's CPU time (`tdur`, `trace.mjs`). */
const CPU_TRACE = ['devtools.timeline', 'disabled-by-default-devtools.timeline'];
const ARTIFACTS = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'artifacts');
/** These checks use their own pages: the runner's `screenshot` shoots its shared page. */
const shoot = (page, name) => page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage: false, timeout: 15_000 }).catch(() => {});

// With E2E_TRACE=1 the paste's and the links' long tasks are summarised from their Chromium
// traces (`trace.mjs`); with E2E_TRACE_DIR=dir the traces are written there (JSON, for chrome://tracing).

const fragment = (dsl) => `#s=1.${Buffer.from(dsl, 'utf8').toString('base64url')}`;

/**
 * The scenario text as the page holds it: a big one is shown read-only, so open it as text
 * first (`#edit-as-text`, the user's explicit choice to pay the text box's layout).
 */
async function scenarioText(page) {
  await settled(page);
  if (await page.locator('#edit-as-text').count()) await page.click('#edit-as-text');
  return page.inputValue('#dsl-text');
}

/** After a read scenario, the editor follows the blast view a few painted frames late (components/later.rs). */
const settled = (page) =>
  page.evaluate(() => new Promise((done) => {
    let frames = 8;
    const next = () => (--frames > 0 ? requestAnimationFrame(next) : setTimeout(done, 0));
    requestAnimationFrame(next);
  }));

/** A chain K0 <- K1 <- ... of `depth` classes with one site on the deepest. */
function chain(depth) {
  const t = ['class A0 { m }'];
  for (let i = 1; i < depth; i++) t.push(`class A${i} extends A${i - 1}`);
  t.push(`site a = A${depth - 1}.m`, 'op { loop 10 { call a } }');
  return t.join('\n') + '\n';
}

/** Wasm functions V8 may compile lazily on the main thread during a page's first deep-link open (see the check). */
const LAZY_COMPILES_MAX = 60;

/** Long tasks are recorded from the start of every document of the context. */
async function observe(context) {
  await context.addInitScript(() => {
    window.__longTasks = [];
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) window.__longTasks.push({ start: e.startTime, ms: e.duration });
    }).observe({ type: 'longtask', buffered: true });
  });
}

const longestSince = (page, t0) => page.evaluate((t0) => Math.max(0, ...window.__longTasks.filter((e) => e.start + e.ms >= t0).map((e) => e.ms)), t0);

/**
 * Paste `text` into the scenario text (a paste event; the page takes a big one without putting
 * it in the text box, `dsl_editor::LIVE_TEXT_BYTES`) and wait for the aggregated blast view of `sites` sites.
 * While the engine worker reads it (the `#loading` note is up), the page must answer a click:
 * the theme button, timed from the click to its new label. Returns the phases (ms after the
 * paste): loading note shown, worker answer applied (note gone), blast view painted.
 * `ready` runs once the clipboard is in the page, just before the paste (to start a trace).
 */
async function paste(page, text, sites, ready = async () => {}) {
  // The clipboard's content is put in the page first, in a task of its own: handing 3.5 MB to
  // the page over the DevTools protocol (deserializing the argument) took ~80 ms of CPU, which
  // the paste task was blamed for. A user's paste event carries its DataTransfer already.
  await page.evaluate((text) => {
    window.__clipboard = new DataTransfer();
    window.__clipboard.setData('text/plain', text);
    // Select all (Ctrl+A), as its own task before the paste.
    document.querySelector('#dsl-text').select();
  }, text);
  await ready();
  const t0 = await page.evaluate(() => performance.now());
  await page.evaluate(() => {
    window.__phases = {};
    // Sampled every animation frame: when the loading note was first and last seen.
    const watch = () => {
      const up = !!document.querySelector('#loading');
      if (up && window.__phases.loading === undefined) window.__phases.loading = performance.now();
      if (!up && window.__phases.loading !== undefined && window.__phases.read === undefined) window.__phases.read = performance.now();
      if (window.__phases.read === undefined) requestAnimationFrame(watch);
    };
    requestAnimationFrame(watch);
    // As a user's select-all and paste: the paste event first; its default action (the text into the box,
    // then an input event) only if the page did not take it (a synthetic event has none).
    const area = document.querySelector('#dsl-text');
    const data = window.__clipboard;
    delete window.__clipboard;
    const taken = !area.dispatchEvent(new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true }));
    if (!taken) {
      area.value = data.getData('text/plain');
      area.dispatchEvent(new InputEvent('input', { bubbles: true }));
    }
  });
  let clickWhileReadingMs = null;
  if (await page.locator('#loading').count()) {
    const theme = page.locator('#theme-toggle');
    const label = await theme.textContent();
    const c0 = Date.now();
    await theme.click({ timeout: 5_000 });
    await page.waitForFunction((l) => document.querySelector('#theme-toggle')?.textContent !== l, label, { timeout: 5_000 });
    clickWhileReadingMs = Date.now() - c0;
    // Only a sample if the note was still up afterwards (the click landed while reading).
    if (!(await page.locator('#loading').count())) clickWhileReadingMs = null;
  }
  await page.waitForSelector(`.aggregate[data-sites="${sites}"] .agg-class`, { timeout: 60_000 });
  const painted = await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => setTimeout(() => r(performance.now()), 0))));
  const phases = await page.evaluate(() => window.__phases);
  const at = (t) => (t === undefined ? null : Math.round(t - t0));
  return { t0, firstPaintMs: Math.round(painted - t0), loadingMs: at(phases.loading), readMs: at(phases.read), clickWhileReadingMs };
}

/** Long tasks since `t0`, as "start+duration" (ms after t0), longest first. */
const tasksSince = (page, t0) =>
  page.evaluate((t0) => window.__longTasks.filter((e) => e.start + e.ms >= t0).sort((a, b) => b.ms - a.ms).map((e) => `${Math.round(e.start - t0)}+${Math.round(e.ms)}`), t0);

/** The page answers a click: a class row opens within a second. */
async function answersClick(page) {
  const row = page.locator('.lane.aggregated').first().locator('.agg-class').first();
  const before = await row.getAttribute('aria-expanded');
  const t0 = Date.now();
  await row.locator('.agg-toggle').click({ timeout: 5_000 });
  await page.waitForFunction((b) => document.querySelector('.lane.aggregated .agg-class')?.getAttribute('aria-expanded') !== b, before, { timeout: 5_000 });
  return Date.now() - t0;
}

async function openEditor(browser, url, log) {
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  await observe(context);
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(url, { waitUntil: 'load', timeout: 60_000 });
  await page.waitForSelector('#dsl-text', { timeout: 30_000 });
  return { context, page, errors, log };
}

export const checks = [
  {
    name: 'scale: a pasted 2,000 classes x 2,000 sites world paints and answers clicks (first paint and long tasks printed; goal < 1 s)',
    async run({ browser, baseUrl, log }) {
      const { context, page, errors } = await openEditor(browser, baseUrl, log);
      try {
        const { t0, firstPaintMs, readMs } = await paste(page, world(2000, 2000), 2000);
        await page.waitForTimeout(500);
        const longest = await longestSince(page, t0);
        const tasks = await tasksSince(page, t0);
        const clickMs = await answersClick(page);
        const nodes = await page.evaluate(() => document.getElementsByTagName('*').length);
        log(`# 2000x2000 paste: first paint ${firstPaintMs} ms (worker answer applied at ${readMs} ms), longest task ${Math.round(longest)} ms (start+ms: ${tasks.slice(0, 5).join(', ') || 'none'}), click answered in ${clickMs} ms, ${nodes} DOM elements`);
        await shoot(page, 'scale-2000x2000');
        expect(errors.length === 0, `page errors: ${errors.join('; ')}`);
        expect(nodes < 20_000, `${nodes} DOM elements: the editor or blast view renders every row`);
        // Goal < 1 s (measured 0.8-0.9 s alone, 1.4 s with the whole e2e suite on 2 cores: the
        // text goes to the engine worker and back). A hang guard; the figure is printed above.
        expect(firstPaintMs < 10_000, `first paint ${firstPaintMs} ms after the paste`);
        // Not yet asserted: no long task > 50 ms (measured 110-230 ms under load; 52 ms in a full run at load 9.8 once the paste and the answer were split). The engine
        // worker reads the text and the text box never holds it (read-only view); 2,000 sites
        // are under lanes::WORKER_SITES, so the page builds the lanes (a few ms) and renders the
        // new scenario in the task that applies the answer (E2E_TRACE=1 shows what it is made of).
      } finally {
        await context.close();
      }
    },
  },
  {
    name: 'scale: a pasted 10^5-site world paints within 3 s, no task over 50 ms while pasting or playing it (observer; CPU time traced), and answers clicks',
    async run({ browser, baseUrl, log }) {
      // Up to three pastes, each in a fresh page, until one has no task over the targets
      // (`pasteOnce`), as the load and deep-link checks take the best of three: the observer's
      // wall time also counts the page's waits for a core on the shared 2-core machine, and a
      // task's CPU time its garbage collections. Every attempt that missed is printed.
      let attempt;
      for (let n = 1; ; n++) {
        attempt = await pasteOnce(browser, baseUrl, log);
        if (attempt.problems.length === 0 || n === 3) break;
        log(`# 10^5 paste, attempt ${n} of 3: ${attempt.problems.join('; ')}: again in a fresh page`);
        await attempt.context.close();
      }
      const { context, page, errors, firstPaintMs, loadingMs, readMs, clickWhileReadingMs, traced, longest, tasks, problems } = attempt;
      try {
        const clickMs = await answersClick(page);
        // The search opens the path to one site among 10^5.
        await page.fill('#blast-search', 's99999');
        await page.keyboard.press('Enter');
        await page.waitForSelector('.lane.aggregated .agg-site[data-site="s99999"]', { timeout: 10_000 });
        await page.evaluate(() => document.querySelector('#blast-view')?.scrollIntoView());
        // The lanes run in the engine worker (lanes.rs): a Step comes back with what it did, a
        // run moves the clock, and the page's tasks meanwhile are its own renders. Played up
        // to three times (from time zero each), as the paste, until one has no task over the
        // targets (`playOnce`); every attempt that missed is printed.
        let play;
        for (let n = 1; ; n++) {
          play = await playOnce(browser, page, log);
          if (play.problems.length === 0 || n === 3) break;
          log(`# 10^5 play, attempt ${n} of 3: ${play.problems.join('; ')}: again from time zero`);
        }
        const { stepNote, clock, longest: playLongest, tasks: playTasks, traced: playTraced } = play;
        log(`# 10^5 lanes in the engine worker: "${stepNote.trim()}", then a new run played to ${clock} virtual ms; longest task ${Math.round(playLongest)} ms (start+ms: ${playTasks.slice(0, 5).join(', ') || 'none'}; traced: longest ${Math.round(playTraced.wallMs)} ms wall, most CPU ${Math.round(playTraced.cpuMs)} ms)`);
        for (const line of play.waited) log(`# 10^5 play: ${line}: waiting for a core, not asserted`);
        const nodes = await page.evaluate(() => document.getElementsByTagName('*').length);
        log(`# 10^5 paste: first paint ${firstPaintMs} ms, longest task ${Math.round(longest)} ms (traced: longest ${Math.round(traced.wallMs)} ms wall, most CPU ${Math.round(traced.cpuMs)} ms), click answered in ${clickMs} ms, ${nodes} DOM elements`);
        log(`# 10^5 paste phases (ms after the paste): loading note ${loadingMs}, worker answer applied ${readMs}, painted ${firstPaintMs}; click while the worker read: ${clickWhileReadingMs ?? 'no sample'} ms; long tasks start+ms: ${tasks.slice(0, 8).join(', ') || 'none'}`);
        await shoot(page, 'scale-1e5-aggregated');
        // The same in dark (the page's screenshots come in both): nothing is timed after this.
        await page.emulateMedia({ colorScheme: 'dark' });
        await page.waitForTimeout(500);
        await shoot(page, 'scale-1e5-aggregated-dark');
        expect(errors.length === 0, `page errors: ${errors.join('; ')}`);
        expect(loadingMs !== null, 'no loading note: the 10^5-site text was not handed to the engine worker');
        // 110,000 lines of text: the DSL view draws only the lines in view (a gutter div per
        // line and a span per token were ~20 s of DOM work and layout).
        expect(nodes < 20_000, `${nodes} DOM elements: the DSL view, editor or blast view renders every line or row`);
        // 3.5 MB of text is never in a text box (its layout was a 1.8-6 s task): read-only view.
        expect((await page.locator('#dsl-view').count()) === 1 && (await page.locator('#dsl-text').count()) === 0, 'the 10^5-site text is in a live text box');
        expect(/ran 10 loop iterations/.test(stepNote), `the worker's step note: ${stepNote}`);
        // The targets: first paint < 3 s and no long task over 50 ms. The engine
        // worker reads the text and keeps the lanes; on the page, the paste's task takes the text
        // (joined as JS strings, brought into wasm once) and the edit, its job and its render run
        // in the next (`browser::take_paste`); the worker's answer is decoded `wire::DECODE_ITEMS`
        // at a time, a task each (`hooks::decode_step`), and applied in the next. The render
        // after the edit shows the loading note only: the text view follows a few frames later
        // and the model's form waits for the read (`components/later.rs`); the text view's
        // lines are one HTML string (`dsl_editor::highlight_html`); the lanes' first update is
        // rendered in a task after its decode, the aggregated view's second lane a frame after
        // the first. Every task's traced CPU time is asserted under PASTE_CPU_CEILING_MS (50),
        // and the observer's long tasks (wall time) below.
        expect(firstPaintMs < 3_000, `first paint ${firstPaintMs} ms after the paste`);
        // The page's own work per task (the old unsplit paste task and decode were 45 + 30 ms in one go).
        log(`# 10^5 paste: most CPU in one task ${Math.round(traced.cpuMs)} ms`);
        for (const problem of problems) expect(false, problem);
        // Playing the pasted world (Step, Reset, Run) with the same targets and allowances: every
        // task's traced CPU time under PLAY_CPU_CEILING_MS, and no observer long task over 50 ms
        // unless it waited for a core more than it ran. Was printed only (58-61 ms in most runs,
        // 174 once): a Reset's render redrew every row of the aggregated view (a task of up to
        // 90 ms CPU) and the lanes' updates were decoded in one task of 20-36 ms.
        for (const problem of play.problems) expect(false, problem);
      } finally {
        await context.close();
      }
    },
  },
  {
    name: 'scale: a pasted 9 MB world of 240,000 sites is shown, and 10 MB of junk is refused with its line, each with its first paint and longest task printed (goal: 3 s, no task over 50 ms)',
    async run({ browser, baseUrl, log }) {
      const sites = 240_000;
      const text = world(sites / 10, sites);
      {
        const { context, page, errors } = await openEditor(browser, baseUrl, log);
        try {
          // Traced from the paste to half a second after the paint: each task's CPU time (the
          // page's own work) beside the observer's wall time, which counts waits for a core too.
          const { t0, firstPaintMs, readMs } = await paste(page, text, sites, () => browser.startTracing(page, { categories: CPU_TRACE }));
          await page.waitForTimeout(500);
          const traced = longestTask(await browser.stopTracing());
          const longest = await longestSince(page, t0);
          const tasks = await tasksSince(page, t0);
          const nodes = await page.evaluate(() => document.getElementsByTagName('*').length);
          log(`# ${(text.length / 1e6).toFixed(1)} MB paste (${sites} sites): first paint ${firstPaintMs} ms (worker answer applied at ${readMs} ms), longest task ${Math.round(longest)} ms (start+ms: ${tasks.slice(0, 5).join(', ') || 'none'}; traced: most CPU in one task ${Math.round(traced.cpuMs)} ms), ${nodes} DOM elements`);
          expect(errors.length === 0, `page errors: ${errors.join('; ')}`);
          expect(nodes < 20_000, `${nodes} DOM elements: the DSL view, editor or blast view renders every line or row`);
        } finally {
          await context.close();
        }
      }
      {
        // Junk as big: the reader stops at its first line, and the page says where.
        const junk = 'this is not a scenario, only words\n'.repeat(Math.ceil(10e6 / 35));
        const { context, page, errors } = await openEditor(browser, baseUrl, log);
        try {
          let t0;
          await pasteScenario(page, junk, async () => {
            t0 = await page.evaluate(() => performance.now());
          });
          await page.waitForSelector('#dsl-error', { timeout: 60_000 });
          const shownMs = Math.round((await page.evaluate(() => performance.now())) - t0);
          const message = (await page.textContent('#dsl-error')).trim();
          await page.waitForTimeout(500);
          const longest = await longestSince(page, t0);
          const tasks = await tasksSince(page, t0);
          log(`# ${(junk.length / 1e6).toFixed(1)} MB of junk pasted: refused in ${shownMs} ms, longest task ${Math.round(longest)} ms (start+ms: ${tasks.slice(0, 5).join(', ') || 'none'}): "${message.slice(0, 120)}"`);
          expect(errors.length === 0, `page errors: ${errors.join('; ')}`);
          expect(/\b1:1\b|line 1\b/.test(message), `the refusal does not name the first line: ${message.slice(0, 200)}`);
        } finally {
          await context.close();
        }
      }
    },
  },
  {
    name: 'scale: a 10^6-site scenario imported from a file is read by the engine worker, shown aggregated, and its lanes run (read and first paint printed)',
    async run({ browser, baseUrl, log }) {
      const sites = 1_000_000;
      const text = world(sites / 10, sites);
      const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'blast-e2e-')), 'million.blast');
      fs.writeFileSync(file, text);
      const { context, page, errors } = await openEditor(browser, baseUrl, log);
      try {
        // Traced from the pick to the painted view: each task's CPU time beside the observer's wall time.
        await browser.startTracing(page, { categories: process.env.E2E_TRACE ? [...CPU_TRACE, 'v8', 'blink'] : CPU_TRACE });
        const t0 = await page.evaluate(() => performance.now());
        // Picked from a path: a buffer would travel through the DevTools protocol into the page,
        // a multi-second task of the harness, not of the page.
        await page.setInputFiles('#import-file', file);
        await page.waitForSelector(`.aggregate[data-sites="${sites}"] .agg-class`, { timeout: 120_000 });
        const paintedMs = Math.round((await page.evaluate(() => performance.now())) - t0);
        const trace = await browser.stopTracing();
        if (process.env.E2E_TRACE) for (const line of longTaskSummary(trace, 25)) log(`# trace ${line}`);
        const traced = longestTask(trace);
        const longest = await longestSince(page, t0);
        // The lanes run in the engine worker: a Step comes back with what it did.
        await page.click('#step');
        await page.waitForFunction(() => /Step 1: (?!stepping)/.test(document.querySelector('#step-note')?.textContent ?? ''), null, { timeout: 120_000 });
        const note = (await page.textContent('#step-note')).trim();
        const stepMs = Math.round((await page.evaluate(() => performance.now())) - t0) - paintedMs;
        log(`# 10^6-site file (${(text.length / 1e6).toFixed(1)} MB): shown aggregated ${paintedMs} ms after the pick, longest task ${Math.round(longest)} ms (traced: most CPU in one task ${Math.round(traced.cpuMs)} ms); a Step answered ${stepMs} ms later: "${note}"`);
        expect(errors.length === 0, `page errors: ${errors.join('; ')}`);
        expect(/ran \d+ loop iteration/.test(note), `the worker's step note: ${note}`);
      } finally {
        await context.close();
        fs.rmSync(path.dirname(file), { recursive: true, force: true });
      }
    },
  },
  {
    name: 'scale: without the engine worker (its loader fails to load) the page says so plainly, keeps a pasted text editable, and a probe result says why it was not read',
    async run({ browser, baseUrl, log }) {
      const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
      await context.route('**/worker-loader.js', (route) => route.fulfill({ status: 404, body: 'gone' }));
      const page = await context.newPage();
      const errors = [];
      page.on('pageerror', (e) => errors.push(String(e)));
      try {
        await page.goto(baseUrl, { waitUntil: 'load', timeout: 60_000 });
        await page.waitForSelector('#dsl-text', { timeout: 30_000 });
        // The engine runs only in the worker: nothing reads the text, which stays as typed.
        await page.locator('#dsl-text').fill(world(200, 200));
        await page.waitForFunction(() => [...document.querySelectorAll('.banner-text')].some((b) => b.textContent.includes('engine worker did not start')), null, { timeout: 30_000 });
        const banners = await page.locator('.banner-text').allTextContents();
        log(`# no worker: notice: ${banners.find((t) => t.includes('worker')) ?? 'none'}`);
        expect((await scenarioText(page)).includes('site s199 = K199.m'), 'the pasted text is not in the editor');
        expect(await page.locator('#dsl-text').isEditable(), 'the editor is not editable');
        // The measured panel's reading and fit run only in the worker (neither is on the page):
        // without one, a reference result is fetched, and the panel says why it was not read.
        await page.selectOption('#measured-reference', 'node');
        await page.waitForSelector('#measured-error', { timeout: 15_000 });
        const readError = await page.locator('#measured-error').textContent();
        log(`# no worker: the measured panel says "${readError}"`);
        expect(readError.includes('node.json') && readError.includes('engine worker') && readError.includes('did not start'), `a result without a worker: ${readError}`);
        expect((await page.locator('#measured-summary').count()) === 0, 'no result is shown without a worker');
        expect(errors.length === 0, `page errors: ${errors.join('; ')}`);
      } finally {
        await context.close();
      }
    },
  },
  {
    name: 'scale: a 5,000-deep link is refused without blocking the page, the deepest link that fits opens, and reloads keep the scenario',
    async run({ browser, baseUrl, log }) {
      const { context, page, errors } = await freshPage(browser, baseUrl, (p) => p.waitForSelector('#dsl-text', { timeout: 30_000 }));
      try {
        await rehearsed(page);
        await page.waitForTimeout(300);
        const before = await page.inputValue('#dsl-text');
        await observeNow(page);
        // 5,000 deep does not fit a link (64 KB): refused with a message before any work.
        const deep = fragment(chain(5000));
        const refuse = async () => {
          const t0 = await page.evaluate(() => performance.now());
          await browser.startTracing(page, { categories: CPU_TRACE });
          await page.goto(baseUrl + deep, { waitUntil: 'load' });
          await page.waitForSelector('.banner-text', { timeout: 10_000 });
          const trace = await browser.stopTracing();
          if (process.env.E2E_TRACE_DIR) fs.writeFileSync(path.join(process.env.E2E_TRACE_DIR, `refuse-${Date.now()}.json`), trace);
          const traced = longestTask(trace);
          const refused = await page.locator('.banner-text').allTextContents();
          expect(refused.some((t) => t.includes('was not loaded')), `no refusal shown: ${refused.join(' | ')}`);
          return { traced, longest: await longestSince(page, t0) };
        };
        // Between attempts the page starts again as the first attempt found it (no saved
        // session, the first preset), so the next attempt opens the link afresh.
        const leave = async () => {
          await page.evaluate(() => localStorage.clear());
          await page.goto(baseUrl, { waitUntil: 'load' });
          await page.waitForSelector('#dsl-text', { timeout: 30_000 });
          await rehearsed(page);
          await observeNow(page);
          await page.waitForTimeout(300);
        };
        const { runs: refusals, best: bestRefusal, maxCpuMs: refusedCpuMs } = await bestOfThree(refuse, leave);
        const { traced: refusedTrace } = bestRefusal;
        expect((await page.inputValue('#dsl-text')) === before, 'the refused link replaced the scenario');
        // The deepest chain a link can carry opens, draws aggregated, and answers clicks.
        let depth = 5000;
        while (fragment(chain(depth)).length > 64 * 1024) depth -= 100;
        // Traced always: the longest task's CPU time is asserted (below). The v8 and blink
        // categories (for E2E_TRACE's summary) cost the page CPU time in every task they trace.
        const categories = [...CPU_TRACE, 'v8.wasm', 'disabled-by-default-v8.compile', ...(process.env.E2E_TRACE ? ['v8', 'blink'] : [])];
        const openDeepest = async () => {
          const t1 = await page.evaluate(() => performance.now());
          await browser.startTracing(page, { categories });
          await page.goto(baseUrl + fragment(chain(depth)), { waitUntil: 'load' });
          await page.waitForSelector(`.aggregate[data-classes="${depth}"]`, { timeout: 20_000 });
          // The parts after the blast view follow one painted frame after another (components/later.rs).
          await page.waitForTimeout(500);
          const trace = await browser.stopTracing();
          if (process.env.E2E_TRACE) for (const line of longTaskSummary(trace)) log(`# trace ${line}`);
          const compiles = mainThreadCompiles(trace);
          if (process.env.E2E_TRACE_DIR) fs.writeFileSync(path.join(process.env.E2E_TRACE_DIR, `open-${Date.now()}.json`), trace);
          log(`# open: longest ${Math.round(await longestSince(page, t1))} ms; main-thread compiles ${JSON.stringify(compiles.byName)}, ${compiles.inLong} inside long tasks; wasm.CompileLazy ${compiles.wasmLazy} (${compiles.wasmLazyMs.toFixed(1)} ms)`);
          return { traced: longestTask(trace), longest: await longestSince(page, t1), tasks: await tasksSince(page, t1), compiles };
        };
        const { runs: attempts, best, maxCpuMs } = await bestOfThree(openDeepest, leave);
        const { traced, tasks: fitTasks } = best;
        const first = attempts[0];
        const clickMs = await answersClick(page);
        await shoot(page, 'scale-deep-chain');
        await page.reload({ waitUntil: 'load' });
        await page.waitForSelector(`.aggregate[data-classes="${depth}"]`, { timeout: 20_000 });
        const after = await scenarioText(page);
        log(`# deep links: 5,000 deep refused (${deep.length} B), longest task ${refusals.map((a) => Math.round(a.longest)).join(' / ')} ms over ${refusals.length} open(s) (best traced: ${Math.round(refusedTrace.wallMs)} ms wall, ${Math.round(refusedTrace.cpuMs)} ms CPU); ${depth} deep opened, longest task ${attempts.map((a) => Math.round(a.longest)).join(' / ')} ms over ${attempts.length} open(s), best (start+ms: ${fitTasks.slice(0, 5).join(', ') || 'none'}; traced: ${Math.round(traced.wallMs)} ms wall, ${Math.round(traced.cpuMs)} ms CPU), the first with ${first.compiles.wasmLazy} wasm functions compiled lazily, click ${clickMs} ms; reload keeps it`);
        expect(after.includes(`class A${depth - 1} extends`), 'after a reload the loaded chain is not there');
        expect(errors.length === 0, `page errors: ${errors.join('; ')}`);
        // No long task over 50 ms while either link opens: the page's own PerformanceObserver
        // (the target's measure, wall time: the best of up to three opens) and the traced CPU
        // time of the longest task (every open). The refusal does no work (its long tasks are
        // the freshly loaded page's running preset: 830-1870 ms wall of 12-17 ms CPU at load 15).
        // The accepted link:
        // the fragment leaves the address bar in the hashchange task and is decoded and opened
        // in the next; the engine worker reads it; its answer is decoded in one task and
        // applied (reducer, top bar) in the next; the blast view and every other part follow a
        // painted frame apart (components/later.rs), and the page's running preset pauses while
        // the link is read. Measured (Chromium trace, no profiler): every task <= 12 ms CPU on
        // a calm core, 13-29 ms CPU and 50-87 ms wall at load 8-15 on the shared 2-core machine
        // (was 16-24 ms CPU, 38-128 ms wall). The page's first open, by the observer: a long
        // task in 5 of 9 runs at load 8-15 before the page rehearsed the open (946, 52, 91, 55,
        // 56 ms), in 8 of 25 with the rehearsal at load 6-15 (51, 54, 246, 51, 179, 61, 56, 71 ms:
        // tasks of 6-9 ms CPU, stretched by waits for a core, lazy compiles ~0 ms in them); so
        // the observer is asserted for the best of up to three opens (a second open reloads the
        // page, whose code V8 has cached), the CPU time and the lazy compiles for every open.
        // And the observer only where the best open's longest task worked more than it waited
        // (`waitedForCore`): on the same build, with the machine otherwise idle but the host slower
        // (every bench row 1.5x its earlier figure), the best of three was 54-59 ms wall in 3 of
        // 5 runs, each of 15-28 ms CPU, while the fresh-clone run just before gave 0 ms.
        const observed = (best, what) => {
          if (best.longest > 50 && waitedForCore(best.traced)) {
            return log(`# deep links: ${what}: the best open was a ${Math.round(best.longest)} ms task of ${Math.round(best.traced.cpuMs)} ms CPU (traced ${Math.round(best.traced.wallMs)} ms wall): waiting for a core, not asserted`);
          }
          expect(best.longest <= 50, `${what} took a ${Math.round(best.longest)} ms task in each of its opens (longtask observer), ${Math.round(best.traced.cpuMs)} ms of it CPU`);
        };
        observed(bestRefusal, 'the refused link');
        observed(best, `opening the ${depth}-deep link (best's start+ms: ${fitTasks.slice(0, 5).join(', ')})`);
        expect(refusedCpuMs <= 50, `the refused link blocked the page ${Math.round(refusedCpuMs)} ms (CPU time)`);
        expect(maxCpuMs <= 50, `opening the ${depth}-deep link took a ${Math.round(maxCpuMs)} ms task (CPU time)`);
        // The page's first open of a big link finds its wasm code compiled: V8 compiles a
        // function at its first call, on the main thread, where the compile waited for a core
        // V8's background threads held (a 51 ms task of 11 ms CPU). The page rehearses the open
        // while idle after load (web/src/warm.rs). Counted in the trace: 157 functions compiled
        // lazily during the first open without the rehearsal (9 of 9 runs), 13-14 with it (25 of
        // 25: the hashchange and worker-message glue, a few std helpers). Later runs count 35-38 (five
        // fresh-clone runs, 2026-12-02): the page side of the real worker round trip,
        // which the rehearsal takes on the page instead (posting the job, copying the answer's
        // bytes, the hooks that decode it in steps). The bound sits between that and the 157
        // of a page that does not rehearse.
        const { wasmLazy } = first.compiles;
        expect(wasmLazy <= LAZY_COMPILES_MAX, `the first open of the ${depth}-deep link compiled ${wasmLazy} wasm functions on the main thread (at most ${LAZY_COMPILES_MAX}: has the rehearsal of web/src/warm.rs fallen behind the link's path?)`);
      } finally {
        await context.close();
      }
    },
  },
];

/**
 * One 10^5-site paste in a fresh page, traced from the paste on (not the clipboard's set-up).
 * Returns the page and the paste's figures, with `problems`: each task over
 * PASTE_CPU_CEILING_MS of traced CPU time, and each long task the page's PerformanceObserver saw
 * (over 50 ms wall) that did not wait for a core more than it ran (`waitedForCore`: wall > 2x
 * CPU; printed). The User Timing mark places the trace's clock on the page's (`tasksOnPageClock`).
 */
async function pasteOnce(browser, baseUrl, log) {
  const opened = await openEditor(browser, baseUrl, log);
  const { page } = opened;
  const categories = [...CPU_TRACE, 'blink.user_timing', ...(process.env.E2E_TRACE ? ['v8', 'blink'] : [])];
  let markAt = 0;
  const ready = async () => {
    await browser.startTracing(page, { categories });
    markAt = await page.evaluate(() => (performance.mark('blast:traced'), performance.now()));
  };
  const pasted = await paste(page, world(10_000, 100_000), 100_000, ready);
  const { t0 } = pasted;
  await page.waitForTimeout(500);
  const trace = await browser.stopTracing();
  if (process.env.E2E_TRACE) for (const line of longTaskSummary(trace, 25)) log(`# trace ${line}`);
  if (process.env.E2E_TRACE_DIR) fs.writeFileSync(path.join(process.env.E2E_TRACE_DIR, `paste-${Date.now()}.json`), trace);
  const traced = longestTask(trace);
  const tracedTasks = tasksOnPageClock(trace, 'blast:traced', markAt);
  await page.waitForTimeout(500);
  const longest = await longestSince(page, t0);
  const tasks = await tasksSince(page, t0);
  const seen = await page.evaluate((t0) => window.__longTasks.filter((e) => e.start + e.ms >= t0 && e.ms > 50), t0);
  const problems = [];
  if (traced.cpuMs > PASTE_CPU_CEILING_MS) problems.push(`a task of ${Math.round(traced.cpuMs)} ms CPU between the paste and the painted blast view (start+ms: ${tasks.slice(0, 8).join(', ')})`);
  for (const e of seen) {
    const same = tracedTasks.find((t) => Math.abs(t.startMs - e.start) < 3);
    const what = `a ${Math.round(e.ms)} ms task at +${Math.round(e.start - t0)} ms (observer; traced: ${same ? `${Math.round(same.wallMs)} ms wall, ${Math.round(same.cpuMs)} ms CPU` : 'not found'})`;
    if (same && waitedForCore(same)) log(`# 10^5 paste: ${what}: waiting for a core, not asserted`);
    else problems.push(`10^5 paste: ${what}: over 50 ms (tasks start+ms: ${tasks.slice(0, 8).join(', ')})`);
  }
  return { ...opened, ...pasted, traced, longest, tasks, problems };
}

/**
 * The play phase on the pasted 10^5-site world (its lanes run in the engine worker), traced
 * from the Step click: Step (the worker runs the whole loop once and says what it did), Reset
 * (new lanes in the worker), Run for a second, then pause. A later attempt resets to time zero
 * first. Returns the step's note, the clock reached, the observer's longest task and long tasks
 * since the Step click, the trace's longest task, the observer's long tasks that waited for a
 * core (`waited`, printed), and `problems` counted as `pasteOnce` counts them: a task over
 * PLAY_CPU_CEILING_MS of traced CPU time, an observer long task over 50 ms that did not wait.
 */
async function playOnce(browser, page, log) {
  if (Number(await page.getAttribute('#virtual-time', 'data-value')) !== 0) {
    await page.click('#reset');
    await page.waitForFunction(() => Number(document.querySelector('#virtual-time')?.dataset.value) === 0, null, { timeout: 30_000 });
    await page.waitForTimeout(500);
  }
  const categories = [...CPU_TRACE, 'blink.user_timing', ...(process.env.E2E_TRACE ? ['v8', 'blink'] : [])];
  await browser.startTracing(page, { categories });
  const p0 = await page.evaluate(() => (performance.mark('blast:play'), performance.now()));
  await page.click('#step');
  await page.waitForFunction(() => /Step 1: (?!stepping)/.test(document.querySelector('#step-note')?.textContent ?? ''), null, { timeout: 60_000 });
  const stepNote = await page.textContent('#step-note');
  // That step ran the whole loop (one segment): Reset builds new lanes in the worker, Run plays them.
  await page.click('#reset');
  await page.waitForFunction(() => Number(document.querySelector('#virtual-time')?.dataset.value) === 0, null, { timeout: 30_000 });
  await page.click('#run');
  // One engine step here is the whole loop over 10^5 sites (seconds on a loaded machine).
  await page.waitForFunction(() => Number(document.querySelector('#virtual-time')?.dataset.value) > 0, null, { timeout: 90_000 });
  await page.waitForTimeout(1_000);
  if ((await page.getAttribute('#run-state', 'data-state')) === 'running') await page.click('#run');
  await page.waitForTimeout(300);
  const trace = await browser.stopTracing();
  if (process.env.E2E_TRACE) for (const line of longTaskSummary(trace, 25)) log(`# play trace ${line}`);
  if (process.env.E2E_TRACE_DIR) fs.writeFileSync(path.join(process.env.E2E_TRACE_DIR, `play-${Date.now()}.json`), trace);
  const traced = longestTask(trace);
  const tracedTasks = tasksOnPageClock(trace, 'blast:play', p0);
  const clock = await page.getAttribute('#virtual-time', 'data-value');
  const longest = await longestSince(page, p0);
  const tasks = await tasksSince(page, p0);
  const seen = await page.evaluate((p0) => window.__longTasks.filter((e) => e.start + e.ms >= p0 && e.ms > 50), p0);
  const problems = [];
  const waited = [];
  if (traced.cpuMs > PLAY_CPU_CEILING_MS) problems.push(`a task of ${Math.round(traced.cpuMs)} ms CPU while playing (start+ms: ${tasks.slice(0, 8).join(', ')})`);
  for (const e of seen) {
    const same = tracedTasks.find((t) => Math.abs(t.startMs - e.start) < 3);
    const what = `a ${Math.round(e.ms)} ms task at +${Math.round(e.start - p0)} ms (observer; traced: ${same ? `${Math.round(same.wallMs)} ms wall, ${Math.round(same.cpuMs)} ms CPU` : 'not found'})`;
    if (same && waitedForCore(same)) waited.push(what);
    else problems.push(`10^5 play: ${what}: over 50 ms (tasks start+ms: ${tasks.slice(0, 8).join(', ')})`);
  }
  return { stepNote, clock, longest, tasks, traced, waited, problems };
}

/**
 * Runs `attempt` (which returns `{ longest, traced }`: the observer's longest task in ms and the
 * trace's `longestTask`) up to three times, calling `between` before each retry, until one has
 * no task over 50 ms. The observer measures wall time, which on a shared machine also counts the
 * page's waits for a core: the check asserts the best attempt's and the largest CPU time of any
 * attempt (`maxCpuMs`), and prints every run.
 */
async function bestOfThree(attempt, between) {
  const runs = [await attempt()];
  while (runs.length < 3 && runs.at(-1).longest > 50) {
    await between();
    runs.push(await attempt());
  }
  const best = runs.reduce((a, b) => (b.longest < a.longest ? b : a));
  return { runs, best, maxCpuMs: Math.max(...runs.map((r) => r.traced.cpuMs)) };
}

/**
 * The page has rehearsed opening a big link while idle after load (`web/src/warm.rs`: it marks
 * `blast:rehearsed` on the performance timeline), as it has a second after load. Waits 10 s at
 * most: a page that never rehearses fails the first open's count of lazy compiles instead.
 */
const rehearsed = (page) =>
  page.waitForFunction(() => performance.getEntriesByName('blast:rehearsed').length > 0, null, { timeout: 10_000 }).catch(() => {});

/** For a page opened without `observe`: start recording long tasks now. */
async function observeNow(page) {
  await page.evaluate(() => {
    window.__longTasks = window.__longTasks || [];
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) window.__longTasks.push({ start: e.startTime, ms: e.duration });
    }).observe({ type: 'longtask', buffered: true });
  });
}
