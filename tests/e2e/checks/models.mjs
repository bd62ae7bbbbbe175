// End-to-end checks of model mode: the shape cache, shared-arena and descriptor
// models in the gallery, replayed live, compared, re-run by knobs, shared by link.
//
//   export const checks = [{ name, run: async ({ page, context, browser, baseUrl, screenshot, log }) => … }]
//
// Same contract as playground.mjs; `log(line)` prints a `#` comment line in the report (frame
// timings). Checks that need a clean browser open their own context and close it again.
import { clickTimes, expect, freshPage, ready, waitFinished } from './common.mjs';

const MODEL_PRESETS = [
  'records_length100',
  'records_rotating11',
  'arena_closeGroup',
  'arena_useAfterClose',
  'arena_scaling16',
  'descriptor_treeMap',
  'descriptor_hashMap',
];
const ONE_PER_FAMILY = [
  ['shape-cache', 'records_rotating11'],
  ['arena', 'arena_closeGroup'],
  ['descriptor', 'descriptor_treeMap'],
];

const modelFragment = (json) => `#m=1.${Buffer.from(json, 'utf8').toString('base64url')}`;

/** Load a model preset (paused). A new session keeps "max"; any other speed is refitted to
 *  the model's runs, so pick the speed first. */
async function loadModel(page, id, speed) {
  await page.selectOption('#speed', { label: speed });
  await page.click(`tr[data-preset="${id}"] button.load`);
  await page.waitForFunction((p) => document.querySelector('#blast-view')?.dataset.model && document.querySelector(`tr[data-preset="${p}"][aria-current="true"]`), id);
}

/** Load, replay at max speed to the end, and return { variant: { value, roles } }. */
async function replayToEnd(page, id) {
  await loadModel(page, id, 'max');
  await page.click('#run');
  await waitFinished(page);
  return table(page);
}

async function table(page) {
  return page.evaluate(() => {
    const out = {};
    for (const row of document.querySelectorAll('#comparison-table tbody tr[data-policy]')) {
      const roles = {};
      for (const td of row.querySelectorAll('td.role[data-value]')) roles[td.dataset.role] = { value: Number(td.dataset.value), text: td.textContent.trim() };
      out[row.dataset.policy] = { value: Number(row.querySelector('td.ops').dataset.value), roles };
    }
    return out;
  });
}

/** A full-page screenshot with the sticky top bar where it belongs (at the top). */
async function fullShot(page, screenshot, name) {
  await page.evaluate(() => window.scrollTo(0, 0));
  await screenshot(name);
}

/** Sample requestAnimationFrame intervals and long tasks while `during` runs. */
async function frameTimings(page, during) {
  await page.evaluate(() => {
    window.__frames = [];
    window.__longTasks = [];
    window.__sampling = true;
    let last = performance.now();
    const tick = (t) => {
      window.__frames.push(t - last);
      last = t;
      if (window.__sampling) requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
    try {
      window.__observer = new PerformanceObserver((list) => list.getEntries().forEach((e) => window.__longTasks.push(e.duration)));
      window.__observer.observe({ entryTypes: ['longtask'] });
    } catch (e) {
      window.__observer = null;
    }
  });
  await during();
  return page.evaluate(() => {
    window.__sampling = false;
    window.__observer?.disconnect();
    const f = window.__frames.slice(1).sort((a, b) => a - b);
    const pick = (q) => (f.length ? f[Math.min(f.length - 1, Math.floor(q * f.length))] : 0);
    return { frames: f.length, median: pick(0.5), p95: pick(0.95), max: f.length ? f[f.length - 1] : 0, longTasks: window.__longTasks.length, longest: Math.max(0, ...window.__longTasks) };
  });
}

const describe = (t) =>
  `${t.frames} frames, median ${t.median.toFixed(1)} ms, p95 ${t.p95.toFixed(1)} ms, max ${t.max.toFixed(1)} ms; long tasks ${t.longTasks} (longest ${t.longest.toFixed(0)} ms)`;

/** Screenshots of one model: mid-replay, then finished (blast view, comparison, charts). */
async function screenshotsOf(page, family, id, scheme, screenshot) {
  await page.emulateMedia({ colorScheme: scheme });
  await loadModel(page, id, '0.1×'); // not max: the session fits its own replay speed
  await page.click('#run');
  await page.waitForFunction(() => {
    const rows = [...document.querySelectorAll('#comparison-table tbody tr[data-policy]')];
    const shown = [...document.querySelectorAll('.model-lane')].filter((l) => !l.querySelector('.lane-empty'));
    return rows.some((r) => /replayed/.test(r.textContent)) && shown.length === rows.length;
  }, null, { timeout: 30_000 });
  await page.waitForTimeout(900); // a little way in: counters moved, flashes under way
  await fullShot(page, screenshot, `model-${family}-blast-view-${scheme}`);
  await page.selectOption('#speed', { label: 'max' });
  await waitFinished(page);
  await fullShot(page, screenshot, `model-${family}-finished-${scheme}`);
  // At 1280 px the two charts sit side by side under the zoom toolbar, which spans both
  // columns (it once took the first column's cell: the throughput chart beside it, a blank
  // the chart's height under it).
  const { tools, throughput, relinks } = await page.evaluate(() => {
    const top = (canvas) => document.querySelector(canvas).closest('figure').getBoundingClientRect().top;
    return { tools: document.querySelector('#charts > .timeline-tools').getBoundingClientRect().bottom, throughput: top('#throughput-chart'), relinks: top('#relinks-chart') };
  });
  expect(Math.abs(throughput - relinks) <= 2 && tools <= Math.min(throughput, relinks), `${family}: charts at ${throughput} and ${relinks} px, the toolbar ends at ${tools} px`);
}

export const checks = [
  {
    name: 'models: every model preset is in the gallery, grouped by family after the call sites',
    run: async ({ page, baseUrl }) => {
      if (!page.url().startsWith(baseUrl)) await page.goto(baseUrl, { waitUntil: 'load' });
      await ready(page);
      const ids = await page.$$eval('table#preset-table tbody tr[data-preset]', (rows) => rows.map((r) => r.dataset.preset));
      for (const id of MODEL_PRESETS) expect(ids.includes(id), `no row for ${id}`);
      const firstModel = Math.min(...MODEL_PRESETS.map((id) => ids.indexOf(id)));
      expect(ids.slice(0, firstModel).every((id) => !MODEL_PRESETS.includes(id)) && ids[0].startsWith('hotLoop'), 'call-site presets come first');
      const families = await page.$$eval('table#preset-table tbody tr[data-preset] .family', (els) => els.map((e) => e.textContent));
      const order = families.slice(firstModel);
      // The model families in order, then the Runtimes group (one row per probed runtime).
      const rank = ['shape-cache', 'arena', 'descriptor', 'runtime'];
      expect(order.every((f) => rank.includes(f)), `a family the gallery should not show after the call sites: ${order}`);
      expect(order.join(',') === [...order].sort((a, b) => rank.indexOf(a) - rank.indexOf(b)).join(','), `grouped by family: ${order}`);
      expect((await page.locator('table#preset-table tbody tr.group-row').count()) === 6, 'a heading per group: call sites, three model families, runtimes, traces');
    },
  },
  {
    name: 'models: arena_closeGroup replays to the end; scoped-access is >= 4x slower than no-deopt',
    run: async ({ page, screenshot }) => {
      const t = await replayToEnd(page, 'arena_closeGroup');
      expect(t['scoped-access'] && t['no-deopt'], `variants in the table: ${Object.keys(t)}`);
      expect(t['scoped-access'].value >= 4 * t['no-deopt'].value, `scoped-access ${t['scoped-access'].value} vs no-deopt ${t['no-deopt'].value}`);
      expect(t['scoped-access'].roles['closing'], 'per-role means are shown');
      const collateral = await page.locator('.model-lane[data-variant="scoped-access"] .thread.verdict-collateral').count();
      expect(collateral === 1, `the segment thread's deopts are collateral (${collateral} rows)`);
      await fullShot(page, screenshot, 'model-arena-table');
    },
  },
  {
    name: 'models: records_rotating11 shows a 0% hit rate under fifo and 100% unbounded',
    run: async ({ page }) => {
      const t = await replayToEnd(page, 'records_rotating11');
      const rate = (v) => t[v].roles['hit rate %'];
      expect(rate('fifo').value === 0 && rate('fifo').text === '0%', `fifo hit rate ${JSON.stringify(rate('fifo'))}`);
      expect(rate('unbounded').value === 100 && rate('unbounded').text === '100%', `unbounded hit rate ${JSON.stringify(rate('unbounded'))}`);
      const filled = await page.locator('.model-lane[data-variant="fifo"] .slot-class[data-class="Line"] .slot.filled').count();
      expect(filled === 10, `fifo keeps 10 shapes cached, shows ${filled}`);
    },
  },
  {
    name: 'models: descriptor_treeMap broken is >= 15x slower than good',
    run: async ({ page }) => {
      const t = await replayToEnd(page, 'descriptor_treeMap');
      expect(t.broken.value >= 15 * t.good.value, `broken ${t.broken.value} vs good ${t.good.value}`);
      const state = await page.getAttribute('.model-lane[data-variant="broken"] .descriptor-slot', 'data-state');
      expect(state === 'unregistered', `the broken slot stays unregistered, shows ${state}`);
    },
  },
  {
    // The replay runs in the engine worker: a Step's answer is a round trip (its first run
    // computed there). Printed, not timed as a test (a shared machine's load decides it); the
    // change itself is asserted.
    name: 'models: Step on a model preset shows the worker\'s first point (click to first change and to the point printed)',
    run: async ({ page, log }) => {
      await loadModel(page, 'descriptor_treeMap', '0.1×');
      // The virtual time, once it is past zero.
      const times = await clickTimes(page, '#step', '#virtual-time', '^(?!0$).+');
      log(`# descriptor_treeMap, Step: click to first DOM change ${times.first?.toFixed(1)} ms, to the worker's first point ${times.done?.toFixed(1)} ms`);
      expect(times.done !== undefined, `the virtual time did not move within 10 s (first change at ${times.first} ms)`);
    },
  },
  {
    name: 'models: a bad knob value shows an error; a good one re-runs the model',
    run: async ({ page }) => {
      await replayToEnd(page, 'records_rotating11');
      await page.fill('#knob-shapes', 'eleven');
      await page.press('#knob-shapes', 'Enter');
      await page.waitForSelector('#knob-error', { timeout: 5_000 });
      expect(/whole number/.test(await page.textContent('#knob-error')), 'the error says why');
      await page.fill('#knob-shapes', '10');
      await page.press('#knob-shapes', 'Enter');
      await page.waitForSelector('#knob-error', { state: 'detached', timeout: 5_000 });
      await waitFinished(page);
      const t = await table(page);
      expect(t.fifo.roles['hit rate %'].value === 100, `ten shapes fit a FIFO cache of ten: ${JSON.stringify(t.fifo.roles)}`);
    },
  },
  {
    name: 'models: the replay is live (clock, counters and flashes move) and frames stay short',
    run: async ({ page, log, screenshot }) => {
      await loadModel(page, 'arena_closeGroup', '0.1×');
      const timings = await frameTimings(page, async () => {
        await page.click('#run');
        await page.waitForSelector('.model-lane .thread .flash-box', { state: 'attached', timeout: 15_000 });
        const t0 = Number(await page.getAttribute('#virtual-time', 'data-value'));
        const d0 = Number(await page.getAttribute('#relink-count', 'data-value'));
        await page.waitForTimeout(1200);
        const t1 = Number(await page.getAttribute('#virtual-time', 'data-value'));
        const d1 = Number(await page.getAttribute('#relink-count', 'data-value'));
        expect(t1 > t0, `virtual time moves: ${t0} -> ${t1}`);
        expect(d1 > d0, `invalidations move: ${d0} -> ${d1}`);
      });
      log(`# frame timings, arena_closeGroup replay at its fitted speed: ${describe(timings)}`);
      expect(timings.max < 250, `no frame longer than 250 ms (${timings.max.toFixed(0)})`);
      await page.click('#run'); // pause

      await loadModel(page, 'arena_scaling16', 'max');
      await page.fill('#knob-threads', '64');
      const heavy = await frameTimings(page, async () => {
        await page.press('#knob-threads', 'Enter');
        await waitFinished(page, 120_000);
      });
      log(`# frame timings, arena 64 threads (the heaviest knob setting) at max speed: ${describe(heavy)}`);
      expect((await page.locator('.model-lane[data-variant="always"] .thread-cell').count()) === 64, '64 threads fold into cells');
      await fullShot(page, screenshot, 'model-arena-64-threads');
    },
  },
  {
    name: 'models: a share link carries the preset, knobs and variants; hostile model links are refused',
    run: async ({ page, browser, baseUrl }) => {
      await loadModel(page, 'descriptor_treeMap', 'max');
      await page.fill('#knob-entries', '12');
      await page.press('#knob-entries', 'Enter');
      await page.click('#variant-fixed');
      await page.click('#share-button');
      const link = await page.inputValue('#share-link');
      expect(link.includes('#m=1.'), `unexpected share link ${link}`);
      const fresh = await freshPage(browser, link);
      try {
        expect((await fresh.page.getAttribute('#blast-view', 'data-model')) === 'descriptor', 'the link opens model mode');
        expect((await fresh.page.inputValue('#knob-entries')) === '12', 'with its knobs');
        expect(!(await fresh.page.locator('#variant-fixed').isChecked()) && (await fresh.page.locator('#variant-broken').isChecked()), 'and its variants');
        expect(fresh.errors.length === 0, `page errors: ${fresh.errors.join('; ')}`);
      } finally {
        await fresh.context.close();
      }
      const cases = [
        ['not json', modelFragment('{"preset":')],
        ['unknown preset', modelFragment('{"preset":"nope"}')],
        ['knob out of range', modelFragment('{"preset":"arena_scaling16","knobs":[["threads","100000"]]}')],
        ['unknown variant', modelFragment('{"preset":"records_rotating11","variants":["<script>"]}')],
        ['future version', '#m=7.e30'],
      ];
      for (const [what, frag] of cases) {
        const bad = await freshPage(browser, baseUrl + frag);
        try {
          await bad.page.waitForSelector('.banner-error', { timeout: 10_000 });
          const banner = await bad.page.textContent('.banner-error');
          expect(/The link's model run was not loaded: /.test(banner), `${what}: the banner says the model run was not loaded: ${banner}`);
          await bad.page.click('tr[data-preset="records_rotating11"] button.run');
          await bad.page.waitForFunction(() => Number(document.querySelector('#virtual-time').dataset.value) > 0, null, { timeout: 10_000 });
          expect(bad.errors.length === 0, `${what}: page errors: ${bad.errors.join('; ')}`);
        } finally {
          await bad.context.close();
        }
      }
    },
  },
  {
    name: 'models: screenshots in light and dark of each model (blast view mid-replay, charts and comparison)',
    run: async ({ page, screenshot }) => {
      for (const scheme of ['light', 'dark']) {
        for (const [family, id] of ONE_PER_FAMILY) await screenshotsOf(page, family, id, scheme, screenshot);
      }
      await page.emulateMedia({ colorScheme: 'light' });
      await page.click('tr[data-preset="hotLoop_baseline"] button.load'); // leave the page in call-site mode
    },
  },
];
