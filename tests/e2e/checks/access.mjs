// End-to-end checks that the page starts light and fast (`load:`), and that it is accessible and
// usable on a phone (`access:`: axe-core, the keyboard alone, a 390 px viewport).
//
//   export const checks = [{ name, run: async ({ browser, baseUrl, log }) => … }]
//
// Same contract as firstvisit.mjs: each check opens its own page (fresh storage, its own
// viewport) and prints its figures as `#` lines.
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { expect, ready, waitFinished } from './common.mjs';
import { longTaskSummary, longestTask, waitedForCore } from './trace.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ARTIFACTS = path.join(HERE, '..', 'artifacts');
// axe-core from tests/e2e/node_modules (package.json), injected into the page as a script.
const AXE_SOURCE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');
const CHURN = 'hotLoop_unrelatedMetaClassChurn';
const BASELINE = 'hotLoop_baseline';
/** The speed picker's value for 0.01x (`playback::SPEEDS`' index). */
const SLOW_SPEED = '2';

/** The load targets: no long task over this during load, and the blast view's lanes
 *  (the first meaningful paint: the running comparison, payoff.mjs) on screen within this after
 *  navigation starts. Each load is traced: the longest task's CPU time (the page's own work)
 *  is asserted under a ceiling every load, and the target and the longtask observer's figure
 *  are printed; the paint target (best of three) and the staging (counted) are asserted. */
const LONG_TASK_TARGET_MS = 50;
const LONG_TASK_CPU_CEILING_MS = 75;
/** The observer's best of three stays under this: a page built in one task again exceeds it
 *  (175-300 ms measured before the staged mount). */
const LONG_TASK_CEILING_MS = 150;
const FIRST_PAINT_BUDGET_MS = 1000;
const LOADS = 3;

async function shot(page, name, fullPage = false) {
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage, timeout: 15_000 });
}

async function withPage(browser, baseUrl, { width = 1280, height = 800, scheme = 'light', init, beforeLoad } = {}, body) {
  const context = await browser.newContext({ viewport: { width, height }, colorScheme: scheme });
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  if (init) await page.addInitScript(init);
  if (beforeLoad) await beforeLoad(page);
  try {
    await page.goto(baseUrl, { waitUntil: 'load', timeout: 60_000 });
    await ready(page);
    await body(page);
    expect(errors.length === 0, `page errors: ${errors.join('; ')}`);
  } finally {
    await context.close();
  }
}

/** Runs in the page before any of its scripts: records long tasks, what is mounted when the
 *  blast view's section first enters the DOM (the stage), and the moment its first lane is
 *  painted (the frame after the engine worker's first answer puts it there). */
function loadProbe() {
  window.__load = { longTasks: [], firstPaint: null, atFirst: null };
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) window.__load.longTasks.push({ start: e.startTime, duration: e.duration });
  }).observe({ type: 'longtask', buffered: true });
  let lane = false;
  const watch = new MutationObserver(() => {
    if (window.__load.atFirst === null && document.querySelector('#blast-view')) {
      // What else is on the page when the blast view first shows: the parts below mount later.
      window.__load.atFirst = { nodes: document.getElementsByTagName('*').length, editor: Boolean(document.querySelector('#editor')), charts: Boolean(document.querySelector('#charts, .analysis, #gallery')) };
    }
    if (!lane && document.querySelector('#blast-view figure.lane')) {
      lane = true;
      requestAnimationFrame(() => setTimeout(() => (window.__load.firstPaint = performance.now()), 0));
    }
    if (window.__load.atFirst !== null && lane) watch.disconnect();
  });
  watch.observe(document, { childList: true, subtree: true });
}

/** One cold load, traced (`traced`: its longest task's wall and CPU time): its figures once the
 *  page has settled. */
async function measureLoad(browser, baseUrl) {
  let figures;
  let traced;
  const beforeLoad = (page) => browser.startTracing(page, { categories: ['devtools.timeline', 'disabled-by-default-devtools.timeline'] });
  await withPage(browser, baseUrl, { init: loadProbe, beforeLoad }, async (page) => {
    await page.waitForFunction(() => window.__load.firstPaint !== null, null, { timeout: 30_000 });
    await page.waitForTimeout(1000); // anything the first render deferred runs now
    const trace = await browser.stopTracing();
    if (process.env.E2E_TRACE_DIR) fs.writeFileSync(path.join(process.env.E2E_TRACE_DIR, `load-${Date.now()}.json`), trace);
    traced = { ...longestTask(trace), summary: process.env.E2E_TRACE ? longTaskSummary(trace) : [] };
    figures = await page.evaluate(() => {
      const fcp = performance.getEntriesByName('first-contentful-paint')[0];
      const nav = performance.getEntriesByType('navigation')[0];
      return {
        fcp: fcp ? fcp.startTime : null,
        domContentLoaded: nav ? nav.domContentLoadedEventEnd : null,
        firstPaint: window.__load.firstPaint,
        longTasks: window.__load.longTasks,
        atFirst: window.__load.atFirst,
        nodes: document.getElementsByTagName('*').length,
      };
    });
  });
  return { ...figures, traced };
}

/** axe-core over the whole page: every violation (`all`) and those serious or critical (`serious`). */
export async function axeViolations(page) {
  if (!(await page.evaluate(() => Boolean(window.axe)))) await page.addScriptTag({ path: AXE_SOURCE });
  const result = await page.evaluate(async () => {
    const r = await window.axe.run(document, { resultTypes: ['violations'] });
    return r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => n.target.join(' ')) }));
  });
  return { all: result, serious: result.filter((v) => v.impact === 'serious' || v.impact === 'critical') };
}

/** `page.waitForFunction` whose timeout says what was awaited. */
async function waitFor(page, what, fn, arg, timeout = 10_000) {
  try {
    await page.waitForFunction(fn, arg, { timeout });
  } catch (e) {
    throw new Error(`waiting for ${what}: ${e.message.split('\n')[0]}`);
  }
}

const describe = (vs) => vs.map((v) => `${v.impact} ${v.id} (${v.help}): ${v.nodes.length} nodes, e.g. ${v.nodes.slice(0, 3).join(' | ')}`).join('\n');

/** Press Tab (Shift+Tab with `back`) until the focus is on `selector`; returns the focus stops
 *  passed that show no focus indicator. */
async function tabTo(page, selector, { back = false, max = 400 } = {}) {
  const unmarked = [];
  for (let i = 0; i < max; i++) {
    await page.keyboard.press(back ? 'Shift+Tab' : 'Tab');
    const at = await page.evaluate((sel) => {
      const el = document.activeElement;
      if (!el || el === document.body) return { done: false, visible: true, what: 'body' };
      const s = getComputedStyle(el);
      const outline = s.outlineStyle !== 'none' && parseFloat(s.outlineWidth) > 0;
      const ring = s.boxShadow && s.boxShadow !== 'none';
      // An SVG node shows its focus as its card's stroke in the accent colour.
      const accent = (() => {
        const probe = document.createElement('span');
        probe.style.color = 'var(--accent)';
        document.body.append(probe);
        const c = getComputedStyle(probe).color;
        probe.remove();
        return c;
      })();
      const card = el instanceof SVGElement && el.querySelector(':scope > rect');
      const stroke = card && getComputedStyle(card).stroke === accent && parseFloat(getComputedStyle(card).strokeWidth) >= 2;
      return { done: el.matches(sel), visible: outline || ring || Boolean(stroke), what: `${el.tagName.toLowerCase()}${el.id ? '#' + el.id : ''}.${[...el.classList].join('.')}` };
    }, selector);
    if (!at.visible) unmarked.push(at.what);
    if (at.done) return unmarked;
  }
  throw new Error(`${max} Tab presses did not reach ${selector}`);
}

/** Runs in the page: WCAG 2 contrast of every relink count the page draws. In the blast view a
 *  count is SVG text on its site's card (the `.site-bg` rect before it: its computed fill, a
 *  colour mix, read as rgb or `color(srgb ...)`); the lane captions' and the top bar's counts
 *  are HTML on their first opaque background. Returns the lowest ratio per kind of count. */
function countContrasts() {
  const parse = (c) => {
    const n = (c.match(/[\d.]+/g) || []).map(Number);
    return c.startsWith('color(') ? n.slice(0, 3).map((v) => v * 255) : n.slice(0, 3);
  };
  const lum = ([r, g, b]) => {
    const f = (v) => ((v /= 255) <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4);
    return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
  };
  const ratio = (a, b) => {
    const [l1, l2] = [lum(a), lum(b)].sort((x, y) => y - x);
    return (l1 + 0.05) / (l2 + 0.05);
  };
  const htmlBackground = (el) => {
    for (let e = el; e; e = e.parentElement) {
      const c = getComputedStyle(e).backgroundColor;
      const a = (c.match(/[\d.]+/g) || []).map(Number)[3];
      if (c !== 'transparent' && (a === undefined || a >= 1)) return parse(c);
    }
    return [255, 255, 255];
  };
  const lowest = {};
  const note = (kind, r, el, colour) => {
    if (!lowest[kind] || r < lowest[kind].ratio) lowest[kind] = { ratio: r, colour, size: getComputedStyle(el).fontSize, n: (lowest[kind]?.n || 0) + 1 };
    else lowest[kind].n += 1;
  };
  for (const t of document.querySelectorAll('.blast-graph .site .site-count')) {
    const card = t.closest('.site').querySelector('.site-bg');
    if (!card || !t.textContent.trim()) continue;
    const kind = /heat-[34]/.test(t.closest('.site').getAttribute('class')) ? 'blast view, hot site count' : 'blast view, site count';
    note(kind, ratio(parse(getComputedStyle(t).fill), parse(getComputedStyle(card).fill)), t, getComputedStyle(t).fill);
  }
  for (const e of document.querySelectorAll('.lane-relinks span, #relink-count, #comparison-table td.num')) {
    if (!e.textContent.trim() || !e.getBoundingClientRect().width) continue;
    const kind = e.closest('.lane-relinks') ? 'lane caption count' : e.id === 'relink-count' ? 'top bar count' : 'comparison table count';
    note(kind, ratio(parse(getComputedStyle(e).color), htmlBackground(e)), e, getComputedStyle(e).color);
  }
  return lowest;
}

/** At 390 px: the top bar's height, the smallest text, the narrowest text input (~10 characters). */
const MAX_BAR_390 = 120;
const MIN_LABEL_PX = 11;
const MIN_INPUT_PX = 80;

/** Runs in the page: what a phone user reads. The top bar's height; the smallest font size of
 *  any visible text (HTML at its computed size, SVG text at its size on screen: the font size
 *  times the drawing's scale); tables wider than the box they scroll in (a table that stacks
 *  into cards is a block); column headers whose text is cut; the narrowest text input. */
function inPhoneFigures() {
  const visible = (e) => {
    const r = e.getBoundingClientRect();
    return r.width > 0 && r.height > 0 && !e.closest('.visually-hidden, .skip-link, [hidden]');
  };
  const what = (e) => `${e.tagName.toLowerCase()}${e.id ? '#' + e.id : ''}.${[...e.classList].join('.')} "${e.textContent.trim().slice(0, 20)}"`;
  let smallest = { px: Infinity, what: 'none' };
  let graph = { px: Infinity, what: 'none' };
  for (const e of document.querySelectorAll('body *')) {
    if (!visible(e) || !e.checkVisibility?.({ visibilityProperty: true, opacityProperty: false })) continue;
    if (![...e.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim())) continue;
    let px = parseFloat(getComputedStyle(e).fontSize);
    const svg = e.closest('svg');
    if (svg) {
      const box = svg.viewBox && svg.viewBox.baseVal;
      if (box && box.width) px *= svg.getBoundingClientRect().width / box.width;
      if (px < graph.px && e.closest('.blast-graph')) graph = { px, what: what(e) };
    }
    if (px < smallest.px) smallest = { px, what: what(e) };
  }
  const tables = { fit: 0, cut: [] };
  for (const t of document.querySelectorAll('table')) {
    if (!visible(t)) continue;
    const box = t.parentElement.getBoundingClientRect();
    if (t.getBoundingClientRect().width <= box.width + 1) tables.fit += 1;
    else tables.cut.push(`${what(t)} ${Math.round(t.getBoundingClientRect().width)} px in ${Math.round(box.width)}`);
  }
  const headers = [...document.querySelectorAll('th')].filter((th) => visible(th) && th.scrollWidth > th.clientWidth + 1).map(what);
  let input = { px: Infinity, what: 'none' };
  for (const i of document.querySelectorAll('input[type="text"], input:not([type]), input[type="number"], input[type="search"]')) {
    if (!visible(i)) continue;
    const w = i.getBoundingClientRect().width;
    if (w < input.px) input = { px: w, what: `${i.id || i.name || i.className} in ${i.closest('section')?.id}` };
  }
  return { bar: document.querySelector('.topbar').getBoundingClientRect().height, smallest, graph, tables, headers, input };
}

export const checks = [
  {
    name: 'load: the page mounts in stages; first paint and long tasks (figures below)',
    run: async ({ browser, baseUrl, log }) => {
      const runs = [];
      for (let i = 0; i < LOADS; i++) runs.push(await measureLoad(browser, baseUrl));
      const longest = (f) => Math.max(0, ...f.longTasks.map((t) => t.duration));
      for (const [i, f] of runs.entries()) {
        log(
          `# load ${i + 1}: first contentful paint ${f.fcp?.toFixed(0)} ms, DOMContentLoaded ${f.domContentLoaded?.toFixed(0)} ms, ` +
            `blast view painted ${f.firstPaint.toFixed(0)} ms (${f.atFirst.nodes} of ${f.nodes} elements mounted when its section entered), long tasks ${f.longTasks.length} ` +
            `(longest ${longest(f).toFixed(0)} ms: ${f.longTasks.map((t) => `${t.duration.toFixed(0)} ms at ${t.start.toFixed(0)}`).join(', ') || 'none'}; ` +
            `traced: ${f.traced.wallMs.toFixed(0)} ms wall, ${f.traced.cpuMs.toFixed(0)} ms CPU)`,
        );
        for (const line of f.traced.summary) log(`# trace ${line}`);
      }
      const paint = Math.min(...runs.map((f) => f.firstPaint));
      const best = runs.reduce((a, b) => (longest(b) < longest(a) ? b : a));
      const task = longest(best);
      const cpu = Math.max(...runs.map((f) => f.traced.cpuMs));
      log(
        `# load best of ${LOADS}: blast view painted ${paint.toFixed(0)} ms (target ${FIRST_PAINT_BUDGET_MS}), longest task ${task.toFixed(0)} ms ` +
          `(target ${LONG_TASK_TARGET_MS}: ${task <= LONG_TASK_TARGET_MS ? 'met' : 'NOT met'}); the longest task's CPU time at most ${cpu.toFixed(0)} ms over the ${LOADS} loads`,
      );
      for (const f of runs) {
        expect(!f.atFirst.editor && !f.atFirst.charts, `the editor, the charts or the gallery were mounted with the blast view: ${JSON.stringify(f.atFirst)}`);
        expect(f.atFirst.nodes * 2 < f.nodes, `the first paint held ${f.atFirst.nodes} of ${f.nodes} elements: the page is not mounted in stages`);
      }
      expect(paint < FIRST_PAINT_BUDGET_MS, `the blast view was painted ${paint.toFixed(0)} ms after navigation at best (target ${FIRST_PAINT_BUDGET_MS} ms)`);
      // The page's own work per task, every load, by CPU time (a busy machine inflates it
      // less than wall time): a ceiling is asserted, the 50 ms target printed above. Measured
      // 21-41 ms CPU at load 2-10 after the boot got a task of its own: too near 50 to gate CI.
      expect(cpu <= LONG_TASK_CPU_CEILING_MS, `a load's longest task did ${cpu.toFixed(0)} ms of CPU work (ceiling ${LONG_TASK_CPU_CEILING_MS}, target ${LONG_TASK_TARGET_MS})`);
      expect(task <= LONG_TASK_CEILING_MS, `the longest task during load was ${task.toFixed(0)} ms at best: the page is built in one task again`);
      if (task > LONG_TASK_TARGET_MS) {
        log(`# load: the best load's longest task was ${task.toFixed(0)} ms of ${best.traced.cpuMs.toFixed(0)} ms CPU (traced ${best.traced.wallMs.toFixed(0)} ms wall)${waitedForCore(best.traced) ? ': waiting for a core' : ''}: not asserted`);
      }
    },
  },
  {
    name: 'access: axe-core: no violations at all, serious or minor (light 1280 px after a run, dark 390 px, model mode)',
    run: async ({ browser, baseUrl, log }) => {
      // The target was no serious ones; every look has had none of any impact since model
      // mode's time column got a heading before its first report (axe's minor
      // empty-table-header, the last one), so a new minor one fails too.
      const report = (look, r) => {
        log(`# axe ${look}: ${r.all.length} violations, ${r.serious.length} serious or critical${r.all.length ? ': ' + r.all.map((v) => `${v.id} (${v.impact})`).join(', ') : ''}`);
        expect(r.all.length === 0, `${look}:\n${describe(r.all)}`);
      };
      await withPage(browser, baseUrl, {}, async (page) => {
        report('light 1280 px, first screen', await axeViolations(page));
        await page.selectOption('#speed', { label: 'max' });
        await page.click(`tr[data-preset="${CHURN}"] button.run`);
        await waitFinished(page);
        await page.selectOption('#why-site', 'hot');
        await page.waitForSelector('.why-summary');
        report('light 1280 px, churn run finished, why panel open', await axeViolations(page));
      });
      await withPage(browser, baseUrl, { width: 390, height: 844, scheme: 'dark' }, async (page) => {
        report('dark 390 px, first screen', await axeViolations(page));
      });
      await withPage(browser, baseUrl, {}, async (page) => {
        await page.click('tr[data-preset="records_rotating11"] button.load');
        await page.waitForSelector('#blast-view.model-mode', { timeout: 30_000 });
        report('light 1280 px, model mode', await axeViolations(page));
      });
    },
  },
  {
    name: 'access: keyboard alone: load a preset, run, fire a mutation, read the why panel; every stop shows its focus',
    run: async ({ browser, baseUrl, log }) =>
      withPage(browser, baseUrl, {}, async (page) => {
        const unmarked = new Set();
        const go = async (selector, options) => (await tabTo(page, selector, options)).forEach((w) => unmarked.add(w));
        await go(`tr[data-preset="${BASELINE}"] button.load`);
        await page.keyboard.press('Enter');
        await waitFor(page, 'the preset to load', (id) => document.querySelector('#dsl-text').value.includes(id), BASELINE, 30_000);
        // "Loop until stopped", so the run is still going when the mutation fires; then Run.
        await go('#loop-mode');
        await page.keyboard.press('Space');
        expect(await page.isChecked('#loop-mode'), 'Space did not tick "loop until stopped"');
        // The looped run is long in work, not in time: at the preset's 1x it played its 2.59 s
        // of virtual time in 2.6 s of wall time (`editor::looping` caps its ops by the
        // engine's work cap), and under load the Tab presses to the mutation and back to the
        // run button took longer, so the run had finished before Pause. At 0.01x the same run
        // lasts 259 s of wall time at least (a frame advances the clock by at most 100 wall ms,
        // `playback::MAX_FRAME_DT_MS`), many times what this check takes under load. Not
        // slower: the clock moves in the hot loop's segments of ~17 virtual ms, so a
        // mutation's relinks show ~1.7 s after it fired at 0.01x, and ~17 s at 0.001x (past
        // the wait below). Chosen with the arrow keys, as a keyboard user would.
        await go('#speed');
        for (let i = 0; i < 8 && (await page.inputValue('#speed')) !== SLOW_SPEED; i++) await page.keyboard.press('ArrowUp');
        expect((await page.inputValue('#speed')) === SLOW_SPEED, `the arrow keys did not reach the speed ${SLOW_SPEED} (0.01x): ${await page.inputValue('#speed')}`);
        await go('#run', { back: true });
        await page.keyboard.press('Enter');
        await waitFor(page, 'the run to start', () => Number(document.querySelector('#virtual-time').dataset.value) > 0, null, 30_000);
        await go('#fire-invalidate');
        const before = Number(await page.getAttribute('#relink-count', 'data-value'));
        await page.keyboard.press('Enter');
        await waitFor(page, 'the mutation to fire', () => /Fired/.test(document.querySelector('.fire-outcome')?.textContent || ''), null).catch(async (e) => {
          const outcome = await page.evaluate(() => `${document.querySelector('.fire-outcome')?.textContent} (run ${document.querySelector('#run-state').dataset.state}, focus ${document.activeElement.id})`);
          throw new Error(`${e.message}; the page says: ${outcome}`);
        });
        await waitFor(page, 'the relinks to move', (n) => Number(document.querySelector('#relink-count').dataset.value) > n, before);
        const after = Number(await page.getAttribute('#relink-count', 'data-value'));
        // Pause from the top bar.
        await go('#run', { back: true });
        await page.keyboard.press('Enter');
        await waitFor(page, 'the run to pause', () => document.querySelector('#run-state').dataset.state === 'paused', null).catch(async (e) => {
          const state = await page.evaluate(
            () => `run ${document.querySelector('#run-state').dataset.state}, loop ${document.querySelector('#loop-mode').checked}, virtual time ${document.querySelector('#virtual-time').dataset.value} ms, speed ${document.querySelector('#speed').selectedOptions[0]?.textContent}, focus ${document.activeElement.id}`,
          );
          throw new Error(`${e.message}; the page says: ${state}`);
        });
        // The why panel: choose the hot site from its picker with the arrow keys.
        await go('#why-site');
        for (let i = 0; i < 10 && (await page.inputValue('#why-site')) !== 'hot'; i++) await page.keyboard.press('ArrowDown');
        expect((await page.inputValue('#why-site')) === 'hot', 'the why panel site picker did not reach "hot" with the arrow keys');
        await page.waitForSelector('#why table.history tbody tr', { timeout: 10_000 });
        // The relink history scrolls on its own: it must take the focus so arrows can scroll it.
        await go('#why .history-scroll');
        const rows = await page.$$eval('#why table.history tbody tr', (trs) => trs.map((tr) => tr.textContent));
        expect(rows.some((r) => /invalidate all/.test(r)), `the why panel does not show the fired "invalidate all": ${rows.slice(0, 3).join(' | ')}`);
        log(`# keyboard: relinks ${before} -> ${after}, why panel rows for hot: ${rows.length}; focus stops without a visible indicator: ${unmarked.size}`);
        expect(unmarked.size === 0, `focus not visible on: ${[...unmarked].join(', ')}`);
        await shot(page, 'access-keyboard-why');
      }),
  },
  {
    name: 'access: 390 px: nothing runs off the side, a top bar <= 120 px, labels >= 11 px, tables that fit or stack, readable inputs (figures and screenshots)',
    run: async ({ browser, baseUrl, log }) => {
      for (const scheme of ['light', 'dark']) {
        await withPage(browser, baseUrl, { width: 390, height: 844, scheme }, async (page) => {
          await page.selectOption('#speed', { label: 'max' });
          await page.click(`tr[data-preset="${CHURN}"] button.run`);
          await waitFinished(page);
          const layout = await page.evaluate(() => {
            const vw = document.documentElement.clientWidth;
            // Inside a box that clips or scrolls, an element's overflow is that box's business.
            const clipped = (e) => {
              for (let a = e.parentElement; a && a !== document.body; a = a.parentElement) if (getComputedStyle(a).overflowX !== 'visible') return true;
              return false;
            };
            const over = [...document.querySelectorAll('body *')]
              .filter((e) => !e.closest('.visually-hidden, svg') && e.getClientRects().length && !clipped(e))
              .map((e) => [e, e.getBoundingClientRect()])
              .filter(([, r]) => r.width > 0 && (r.right > vw + 1 || r.left < -1))
              .map(([e, r]) => `${e.tagName.toLowerCase()}${e.id ? '#' + e.id : ''}.${[...e.classList].join('.')} ${Math.round(r.left)}..${Math.round(r.right)}`);
            return { vw, scrollWidth: document.documentElement.scrollWidth, over };
          });
          log(`# 390 px ${scheme}: page ${layout.scrollWidth} px wide in a ${layout.vw} px viewport, ${layout.over.length} elements past the edge`);
          expect(layout.over.length === 0, `past the edge: ${layout.over.slice(0, 10).join(', ')}`);
          expect(layout.scrollWidth <= layout.vw, `the page scrolls sideways: ${layout.scrollWidth} px in ${layout.vw} px`);
          // Usable, not only inside the edge: a compact top bar, labels a phone can read (SVG
          // text at its drawn size, after the blast view's scaling), tables that fit their box
          // or stack, headers and inputs wide enough to read.
          const usable = await page.evaluate(inPhoneFigures);
          log(
            `# 390 px ${scheme}: top bar ${usable.bar.toFixed(0)} px tall (at most ${MAX_BAR_390}), smallest label ${usable.smallest.px.toFixed(1)} px (${usable.smallest.what}; at least ${MIN_LABEL_PX}), ` +
              `smallest blast-view label ${usable.graph.px.toFixed(1)} px, tables ${usable.tables.fit} fit or stack, ${usable.tables.cut.length} cut; headers cut ${usable.headers.length}; narrowest text input ${usable.input.px.toFixed(0)} px (${usable.input.what})`,
          );
          expect(usable.bar <= MAX_BAR_390, `the top bar is ${usable.bar.toFixed(0)} px tall at 390 px (at most ${MAX_BAR_390})`);
          expect(usable.smallest.px >= MIN_LABEL_PX - 0.05, `a label is ${usable.smallest.px.toFixed(1)} px: ${usable.smallest.what}`);
          expect(usable.graph.px >= MIN_LABEL_PX - 0.05, `the blast view draws labels at ${usable.graph.px.toFixed(1)} px: ${usable.graph.what}`);
          expect(usable.tables.cut.length === 0, `tables wider than their box: ${usable.tables.cut.join(', ')}`);
          expect(usable.headers.length === 0, `column headers cut: ${usable.headers.slice(0, 6).join(', ')}`);
          expect(usable.input.px >= MIN_INPUT_PX, `a text input is ${usable.input.px.toFixed(0)} px wide: ${usable.input.what}`);
          await shot(page, `access-390-${scheme}`, true);
          // What a phone shows, screen by screen: the top, the blast view, the charts, the why panel.
          await page.selectOption('#why-site', 'hot');
          for (const [part, selector] of [['top', 'body'], ['blast-view', '#blast-view'], ['charts', '.analysis'], ['why', '#why']]) {
            await page.evaluate((sel) => document.querySelector(sel).scrollIntoView(), selector);
            await page.waitForTimeout(100);
            await shot(page, `access-390-${scheme}-${part}`);
          }
        });
      }
    },
  },
  {
    name: 'access: relink counts at AA (>= 4.5:1) in the light and dark themes (figures below)',
    run: async ({ browser, baseUrl, log }) => {
      for (const scheme of ['light', 'dark']) {
        await withPage(browser, baseUrl, { scheme }, async (page) => {
          await page.selectOption('#speed', { label: 'max' });
          await page.click(`tr[data-preset="${CHURN}"] button.run`);
          await waitFinished(page);
          // The parts follow a read a painted frame or more apart (components/later.rs): under
          // load the comparison said finished before the blast view had drawn its counts.
          await page
            .waitForFunction(() => [...document.querySelectorAll('.blast-graph .site')].some((s) => /heat-[34]/.test(s.getAttribute('class')) && s.querySelector('.site-count')), null, { timeout: 10_000 })
            .catch(() => {});
          const lowest = await page.evaluate(countContrasts);
          for (const [kind, f] of Object.entries(lowest)) log(`# contrast ${scheme}: ${kind} ${f.ratio.toFixed(2)}:1 at worst over ${f.n} (${f.colour}, ${f.size})`);
          expect(lowest['blast view, hot site count'], `no hot site count drawn in ${scheme}: ${JSON.stringify(lowest)}`);
          const low = Object.entries(lowest).filter(([, f]) => f.ratio < 4.5);
          expect(low.length === 0, `${scheme}: counts under 4.5:1: ${low.map(([k, f]) => `${k} ${f.ratio.toFixed(2)}`).join(', ')}`);
        });
      }
    },
  },
  {
    name: 'access: at 1440x900 after a run the "Fire a mutation" panel is not cut off, and the preset picker shows its whole title (figures below)',
    run: async ({ browser, baseUrl, log }) =>
      withPage(browser, baseUrl, { width: 1440, height: 900 }, async (page) => {
        await page.selectOption('#speed', { label: 'max' });
        await page.click(`tr[data-preset="${CHURN}"] button.run`);
        await waitFinished(page);
        const f = await page.evaluate(() => {
          const view = document.querySelector('#blast-view');
          const fire = document.querySelector('#mutations');
          const picker = document.querySelector('#preset-picker');
          const style = getComputedStyle(picker);
          const ctx = document.createElement('canvas').getContext('2d');
          ctx.font = `${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
          const label = picker.selectedOptions[0].textContent;
          return {
            hidden: view.scrollHeight - view.clientHeight,
            fireBottom: fire.getBoundingClientRect().bottom - view.getBoundingClientRect().bottom,
            label,
            text: ctx.measureText(label).width,
            room: picker.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight) - 16,
          };
        });
        log(`# 1440 px: the blast view hides ${f.hidden} px of its content below its own scroll box; the mutation panel ends ${f.fireBottom.toFixed(0)} px from its bottom; the picker's "${f.label}" needs ${f.text.toFixed(0)} px and has ${f.room.toFixed(0)}`);
        expect(f.hidden <= 1 && f.fireBottom <= 1, `the blast view cuts off ${f.hidden} px (the mutation panel ends ${f.fireBottom.toFixed(0)} px below its box)`);
        expect(f.text <= f.room + 1, `the preset picker cuts its title: ${f.text.toFixed(0)} px of text in ${f.room.toFixed(0)} px`);
      }),
  },
];
