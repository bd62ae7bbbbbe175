// End-to-end checks of the bugs and rough edges a first visit found (`first visit:`): focus and
// shortcuts, forms, run status, clipping, notices, console warnings, legends, contrast, the
// 390 px gallery, chart read-outs, loop mode, undo and redo, a blank scenario.
//
//   export const checks = [{ name, run: async ({ page, context, browser, baseUrl, screenshot, log }) => … }]
//
// Same contract as playground.mjs. Each check opens its own page (fresh storage, its own
// viewport) so it shows one thing and does not depend on what ran before; `log(line)` prints
// a `#` line in the report (the contrast figures).
import { expect, ready, shoot, showSection, waitFinished } from './common.mjs';

const BASELINE = 'hotLoop_baseline';
/** The looks the screenshots are taken in: [colour scheme, viewport width]. */
const LOOKS = [['light', 1280], ['dark', 1280], ['light', 390], ['dark', 390]];
const CHURN = 'hotLoop_unrelatedMetaClassChurn';

/** The unrelated-churn preset run to the end at full speed. */
async function runChurnToEnd(page) {
  await page.selectOption('#speed', { label: 'max' });
  await page.click(`tr[data-preset="${CHURN}"] button.run`);
  await waitFinished(page);
}

/** A page in a fresh context at `width` x `height`, light or dark, with console messages kept. */
async function open(browser, baseUrl, { width = 1280, height = 800, scheme = 'light', readyFn = ready } = {}) {
  const context = await browser.newContext({ viewport: { width, height }, colorScheme: scheme });
  const page = await context.newPage();
  const console_ = [];
  const errors = [];
  page.on('console', (m) => console_.push({ type: m.type(), text: m.text() }));
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(baseUrl, { waitUntil: 'load', timeout: 60_000 });
  await readyFn(page);
  return { context, page, console: console_, errors };
}

/** Run `body` on a fresh page and close its context whatever happens. */
async function withPage(browser, baseUrl, options, body) {
  const fresh = await open(browser, baseUrl, options);
  try {
    await body(fresh.page, fresh);
    expect(fresh.errors.length === 0, `page errors: ${fresh.errors.join('; ')}`);
  } finally {
    await fresh.context.close();
  }
}

/** Load preset `id` from the gallery: its text is in the editor at once, its scenario (the
 *  form's name) and lanes once the engine worker has read it. */
async function loadPreset(page, id) {
  const onScreen = (p) =>
    document.querySelector('#dsl-text')?.value.includes(p) && document.querySelector('#scenario-name')?.value === p && document.querySelector('.lane .site') !== null;
  const loaded = (t) => page.waitForFunction(onScreen, id, { timeout: t }).then(() => true, () => false);
  await page.click(`tr[data-preset="${id}"] button.load`);
  if (await loaded(10_000)) return;
  // Seen once in a full run (stop 21, not reproduced alone): the preset's text never reached the
  // editor after the click. Say what the page showed, so the next occurrence can be diagnosed,
  // then click once more: the check is about what follows a load, not the load.
  const seen = await page.evaluate(() => ({
    editor: Boolean(document.querySelector('#dsl-text')),
    scenario: document.querySelector('#dsl-text')?.value.split('\n', 1)[0] ?? null,
    model: document.querySelector('#scenario-name')?.value ?? null,
    loading: Boolean(document.querySelector('#loading')),
  }));
  console.log(`# loadPreset(${id}): not loaded 10 s after the click; the page showed ${JSON.stringify(seen)}; clicking again`);
  await page.click(`tr[data-preset="${id}"] button.load`);
  expect(await loaded(30_000), `the preset ${id} was on screen (text, model and lanes) after a second click`);
}

const focusInSheet = (page) => page.evaluate(() => Boolean(document.activeElement && document.activeElement.closest('#cheat-sheet')));
const sheetOpen = (page) => page.locator('#cheat-sheet').count().then((n) => n > 0);

/** Runs in the page: WCAG 2 contrast of `selectors` (the first visible element of each) and,
 *  with `scan`, every text element under 4.5:1 (one line per distinct look). A text's
 *  background is its computed colour on the layers it is painted on (translucent ones blended
 *  up to the first opaque one). */
function contrastInPage({ selectors, scan }) {
  const parse = (c) => (c.match(/[\d.]+/g) || []).map(Number);
  const lum = ([r, g, b]) => {
    const f = (v) => ((v /= 255) <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4);
    return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
  };
  const background = (el) => {
    const layers = [];
    for (let e = el; e; e = e.parentElement) {
      const c = parse(getComputedStyle(e).backgroundColor);
      const a = c.length > 3 ? c[3] : 1;
      if (a > 0) layers.push([c[0], c[1], c[2], a]);
      if (a >= 1) break;
    }
    let out = [255, 255, 255];
    for (const [r, g, b, a] of layers.reverse()) out = [r * a + out[0] * (1 - a), g * a + out[1] * (1 - a), b * a + out[2] * (1 - a)];
    return out;
  };
  const ratioOf = (el, style) => {
    const [l1, l2] = [lum(parse(style.color)), lum(background(el))].sort((a, b) => b - a);
    return (l1 + 0.05) / (l2 + 0.05);
  };
  const ratios = selectors.map((sel) => {
    const el = [...document.querySelectorAll(sel)].find((e) => e.getBoundingClientRect().width > 0);
    if (!el) return { sel, ratio: null };
    const style = getComputedStyle(el);
    return { sel, ratio: ratioOf(el, style), size: style.fontSize, colour: style.color };
  });
  const low = new Map();
  if (scan) {
    for (const el of document.querySelectorAll('body *')) {
      if (el.closest('svg, .visually-hidden, .skip-link, :disabled')) continue;
      if (![...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim())) continue;
      if (!el.getBoundingClientRect().width) continue;
      const style = getComputedStyle(el);
      const ratio = ratioOf(el, style);
      const key = `${el.tagName.toLowerCase()}.${[...el.classList].join('.')} ${style.color}`;
      if (ratio < 4.5 && !low.has(key)) low.set(key, `${ratio.toFixed(2)}:1 ${key} "${el.textContent.trim().slice(0, 24)}"`);
    }
  }
  return { ratios, low: [...low.values()] };
}

const contrasts = (page, selectors) => page.evaluate(contrastInPage, { selectors, scan: false }).then((r) => r.ratios);
const lowContrastText = (page) => page.evaluate(contrastInPage, { selectors: [], scan: true }).then((r) => r.low);

export const checks = [
  {
    name: 'first visit: the shortcuts sheet takes the focus, keeps Tab inside, Esc closes it and gives the focus back',
    run: async ({ browser, baseUrl }) =>
      withPage(browser, baseUrl, {}, async (page) => {
        await page.click('#help-button');
        await page.waitForSelector('#cheat-sheet');
        expect(await focusInSheet(page), 'opening the sheet should move the focus into it');
        for (let i = 0; i < 6; i++) {
          await page.keyboard.press('Tab');
          expect(await focusInSheet(page), `Tab #${i + 1} left the modal sheet (focus on ${await page.evaluate(() => document.activeElement?.outerHTML.slice(0, 80))})`);
        }
        for (let i = 0; i < 3; i++) {
          await page.keyboard.press('Shift+Tab');
          expect(await focusInSheet(page), `Shift+Tab #${i + 1} left the modal sheet`);
        }
        await page.keyboard.press('Escape');
        expect(!(await sheetOpen(page)), 'Esc closes the sheet');
        expect(await page.evaluate(() => document.activeElement?.id) === 'help-button', 'the focus goes back to the ? button');
      }),
  },
  {
    name: 'first visit: shortcuts work while a checkbox or a select has the focus',
    run: async ({ browser, baseUrl }) =>
      withPage(browser, baseUrl, {}, async (page) => {
        await loadPreset(page, BASELINE);
        for (const control of ['#policy-global', '#speed']) {
          await page.focus(control);
          await page.keyboard.press('?');
          expect(await sheetOpen(page), `? with ${control} focused should open the sheet`);
          await page.keyboard.press('Escape');
          expect(!(await sheetOpen(page)), 'Esc closes it again');
        }
        await page.focus('#policy-global');
        const before = await page.evaluate(() => document.querySelector('.lane figcaption').textContent);
        for (let i = 0; i < 3; i++) await page.keyboard.press('n');
        // The engine worker answers each step a round trip later.
        await page.waitForFunction((b) => document.querySelector('.lane figcaption').textContent !== b, before, { timeout: 5_000 }).catch(() => {});
        const after = await page.evaluate(() => document.querySelector('.lane figcaption').textContent);
        expect(before !== after, `n with a checkbox focused should step the run (caption stayed "${after}")`);
        expect(await page.locator('#policy-global').isChecked(), 'the checkbox itself is untouched');
        await page.focus('#dsl-text');
        await page.keyboard.press('?');
        expect(!(await sheetOpen(page)), '? typed into the DSL text is text, not a shortcut');
      }),
  },
  {
    name: 'first visit: the add-class form does not keep the last "extends" choice',
    run: async ({ browser, baseUrl }) =>
      withPage(browser, baseUrl, {}, async (page) => {
        await loadPreset(page, BASELINE);
        await page.fill('#new-class-name', 'E2eChild');
        await page.selectOption('.add-row select', 'Hot');
        await page.click('#add-class');
        await page.waitForFunction(() => document.querySelector('#dsl-text').value.includes('E2eChild'));
        await page.fill('#new-class-name', 'E2eOther');
        await page.click('#add-class');
        await page.waitForFunction(() => document.querySelector('#dsl-text').value.includes('E2eOther'));
        const text = await page.inputValue('#dsl-text');
        expect(/class E2eChild extends Hot\b/.test(text), 'the first class extends Hot as chosen');
        expect(!/class E2eOther extends/.test(text), `the second class must not silently extend the last choice:\n${text.split('\n').filter((l) => l.includes('E2e')).join('\n')}`);
        expect((await page.inputValue('.add-row select')) === '', 'the parent list is back on (nothing)');
      }),
  },
  {
    name: 'first visit: a paused run says paused, and each Step says what it executed',
    run: async ({ browser, baseUrl }) => {
      for (const [scheme, width] of LOOKS) {
        await withPage(browser, baseUrl, { scheme, width, height: 800 }, async (page) => {
          await loadPreset(page, BASELINE);
          const notes = [];
          for (let i = 0; i < 4; i++) {
            await page.click('#step');
            // The note says "stepping…" until the engine worker's answer is applied: read the
            // answered one (under load the first was read while it still said "stepping…").
            await page
              .waitForFunction((n) => new RegExp(`^Step ${n}: (?!stepping)`).test(document.querySelector('#step-note')?.textContent ?? ''), i + 1, { timeout: 10_000 })
              .catch(() => {});
            const note = (await page.locator('#step-note').count()) ? await page.textContent('#step-note') : '';
            notes.push(note);
          }
          expect(notes.every((n) => /^Step \d+: /.test(n)), `every step should say what it did: ${JSON.stringify(notes)}`);
          expect(new Set(notes).size === notes.length, `each step's note differs: ${JSON.stringify(notes)}`);
          expect(notes[0].includes('fired'), `the first step fires a setup event and says so: ${notes[0]}`);
          expect((await page.textContent('#run')).trim() === 'Resume', `the button reads ${await page.textContent('#run')}`);
          const captions = await page.$$eval('.lane figcaption', (els) => els.map((e) => e.textContent));
          expect(captions.every((c) => c.includes('paused') && !c.includes('running')), `lane captions: ${captions.join(' | ')}`);
          expect((await page.textContent('#run-state')).trim() === 'paused', 'the status line says paused');
          await showSection(page, '#blast-view');
          await shoot(page, `firstvisit-paused-steps-${scheme}-${width}`);
        });
      }
    },
  },
  {
    name: 'first visit: the why panel table is not clipped at 1280 px (light and dark screenshots)',
    run: async ({ browser, baseUrl }) => {
      for (const [scheme, width] of LOOKS) {
        await withPage(browser, baseUrl, { scheme, width, height: 800 }, async (page) => {
          await runChurnToEnd(page);
          await page.selectOption('#why-site', 'hot');
          await page.waitForSelector('.why-lane table.history tbody tr');
          await showSection(page, '#why');
          await shoot(page, `firstvisit-why-${scheme}-${width}`);
          if (width !== 1280) return;
          const clipped = await page.$$eval('.why-lane', (lanes) =>
            lanes.filter((lane) => lane.querySelector('table.history')).flatMap((lane) => {
              const scroller = lane.querySelector('.history-scroll');
              const table = lane.querySelector('table.history');
              const target = lane.querySelector('table.history thead th:last-child');
              const panel = lane.closest('#why').getBoundingClientRect();
              const problems = [];
              if (table.scrollWidth > scroller.clientWidth + 1) problems.push(`${lane.dataset.policy}: table ${table.scrollWidth}px in ${scroller.clientWidth}px`);
              if (target.getBoundingClientRect().right > panel.right + 1) problems.push(`${lane.dataset.policy}: target column ends at ${target.getBoundingClientRect().right} past the panel (${panel.right})`);
              return problems;
            }),
          );
          expect(clipped.length === 0, clipped.join('; '));
        });
      }
    },
  },
  {
    name: 'first visit: notices do not pile up, and error text shows `names` as code',
    run: async ({ browser, baseUrl }) =>
      withPage(browser, baseUrl, {}, async (page) => {
        const file = (name, text) => ({ name, mimeType: 'text/plain', buffer: Buffer.from(text) });
        for (const name of ['one', 'two', 'three']) {
          const text = (await page.inputValue('#dsl-text')).replace(/^scenario "[^"]*"/m, `scenario "${name}"`);
          await page.setInputFiles('#import-file', file(`${name}.blast`, text));
          await page.waitForFunction((n) => document.querySelector('#dsl-text').value.includes(`scenario "${n}"`), name);
        }
        const banners = await page.$$eval('#banners .banner', (els) => els.map((e) => e.textContent));
        expect(banners.length === 1, `three imports should leave one notice, found ${banners.length}: ${banners.join(' | ')}`);
        await page.setInputFiles('#import-file', file('broken.blast', 'scenario "b"\nclass A extends Nowhere { m }\nsite s = A.m\nop { call s }\n'));
        await page.waitForSelector('.banner-error');
        const error = await page.$eval('.banner-error .banner-text', (e) => ({ text: e.textContent, code: [...e.querySelectorAll('code')].map((c) => c.textContent) }));
        expect(!error.text.includes('`'), `literal backticks in: ${error.text}`);
        expect(error.code.includes('Nowhere'), `the class name should be code: ${JSON.stringify(error)}`);
      }),
  },
  {
    name: 'first visit: model mode has no dead columns (published cell, speed-up while the first variant replays)',
    run: async ({ browser, baseUrl }) =>
      withPage(browser, baseUrl, {}, async (page) => {
        const dead = await page.$$eval('#preset-table tbody tr[data-preset]', (rows) =>
          rows.filter((r) => /^(records|arena|descriptor)_/.test(r.dataset.preset) && [...r.querySelectorAll('td')].some((td) => td.textContent.trim() === '—')).map((r) => r.dataset.preset),
        );
        expect(dead.length === 0, `rows with a dead "—" cell: ${dead.join(', ')}`);
        await page.selectOption('#speed', { label: 'max' });
        await page.click('tr[data-preset="arena_closeGroup"] button.load');
        await page.waitForFunction(() => document.querySelector('#blast-view')?.dataset.model);
        for (let i = 0; i < 4; i++) await page.click('#step');
        await page.waitForFunction(() => document.querySelectorAll('#comparison-table tbody tr[data-policy]').length > 0);
        const cells = await page.$$eval('#comparison-table tbody tr[data-policy]', (rows) =>
          rows.map((r) => [r.dataset.policy, r.dataset.finished, r.querySelectorAll('td')[1].textContent.trim()]),
        );
        expect(cells.some(([, finished]) => finished === 'false'), `a variant should still be replaying: ${JSON.stringify(cells)}`);
        const blank = cells.filter(([, , text]) => !/\d/.test(text));
        expect(blank.length === 0, `speed-up vs first is blank part-way: ${JSON.stringify(cells)}`);
      }),
  },
  {
    name: 'first visit: the page loads without console warnings (no ignored integrity on the wasm preload)',
    run: async ({ browser, baseUrl }) => {
      const fresh = await open(browser, baseUrl);
      try {
        await fresh.page.waitForTimeout(500);
        const noisy = fresh.console.filter((m) => m.type === 'warning' || m.type === 'error');
        expect(noisy.length === 0, `console on load:\n  ${noisy.map((m) => `${m.type}: ${m.text}`).join('\n  ')}`);
      } finally {
        await fresh.context.close();
      }
    },
  },
  {
    name: 'first visit: Run on a preset brings the results into view',
    run: async ({ browser, baseUrl }) =>
      withPage(browser, baseUrl, {}, async (page) => {
        await page.evaluate(() => window.scrollTo(0, 0));
        await page.click('tr[data-preset="hotLoop_categoryEnterLeave"] button.run');
        await page.waitForTimeout(300);
        const top = await page.evaluate(() => document.querySelector('#blast-view').getBoundingClientRect().top);
        expect(top >= 0 && top < 200, `the blast view should come into view after Run (its top is at ${Math.round(top)} px)`);
      }),
  },
  {
    name: 'first visit: sites that were never called have their own state and legend entry',
    run: async ({ browser, baseUrl }) =>
      withPage(browser, baseUrl, {}, async (page) => {
        await loadPreset(page, BASELINE);
        // The text is in the editor before the lanes are drawn (the worker's first update): under
        // load the full run found no site drawn yet.
        await page.waitForSelector('.lane .site', { timeout: 30_000 });
        const states = await page.$$eval('.lane .site', (els) => els.map((e) => e.dataset.state));
        expect(states.length > 0 && states.every((s) => s === 'not-called'), `at virtual time zero no site has been called: ${states.join(', ')}`);
        const legend = await page.textContent('.legend');
        expect(legend.includes('not called'), 'the legend names the not-called state');
        await page.selectOption('#speed', { label: 'max' });
        await page.click('#run');
        await waitFinished(page);
        const after = await page.$$eval('.lane .site', (els) => els.map((e) => e.dataset.state));
        expect(after.some((s) => s !== 'not-called'), 'called sites show their cache state');
      }),
  },
  {
    name: 'first visit: accessible names, a skip link, focusable sites, AA contrast (figures below)',
    run: async ({ browser, baseUrl, log }) => {
      await withPage(browser, baseUrl, {}, async (page) => {
        for (const id of ['diff-a', 'diff-b']) {
          const name = await page.locator(`#${id}`).evaluate((el) => el.getAttribute('aria-label') || (el.labels && [...el.labels].map((l) => l.textContent).join(' ')) || '');
          expect(name.trim().length > 0, `#${id} has no accessible name`);
        }
        const names = await page.$$eval('#preset-table button', (bs) => bs.map((b) => b.getAttribute('aria-label') || b.textContent.trim()));
        expect(new Set(names).size === names.length, `the preset buttons' names repeat: ${names.length} buttons, ${new Set(names).size} names`);
        await page.keyboard.press('Tab');
        const skip = await page.evaluate(() => ({ cls: document.activeElement.className, text: document.activeElement.textContent }));
        expect(/skip/i.test(skip.cls + skip.text), `the first Tab stop should be a skip link, got ${JSON.stringify(skip)}`);
        await page.keyboard.press('Enter');
        expect(await page.evaluate(() => document.activeElement.id) === 'blast-view', 'the skip link moves the focus to the blast view');
        await page.keyboard.press('Tab');
        await page.keyboard.press('Tab');
        const site = page.locator('.lane .site').first();
        expect((await site.getAttribute('tabindex')) === '0', 'site nodes are in the tab order');
        await site.focus();
        await page.keyboard.press('Enter');
        expect((await page.inputValue('#why-site')) === (await site.getAttribute('data-site')), 'Enter on a focused site selects it');
      });
      // The contrast figures, light theme at 1280 px, with the real colours of a finished run.
      await withPage(browser, baseUrl, { scheme: 'light' }, async (page) => {
        await runChurnToEnd(page);
        await page.selectOption('#why-site', 'hot');
        await page.waitForSelector('.why-summary');
        const figures = await contrasts(page, [
          '.why-summary .v-necessary',
          '.why-summary .v-collateral',
          '.why-summary .v-missed',
          '#comparison-table th.v-necessary',
          '#comparison-table th.v-collateral',
          '#comparison-table th.v-missed',
          '.lane-relinks .v-necessary',
          '.lane-relinks .v-collateral',
          '.lane-relinks .v-missed',
          '.stat-label',
          '.policies legend',
          '.speed span',
          '#preset-table thead th',
          '.family',
        ]);
        for (const f of figures) log(`# contrast ${f.ratio ? f.ratio.toFixed(2) : 'n/a'}:1  ${f.sel}  (${f.colour}, ${f.size})`);
        const failing = figures.filter((f) => f.ratio !== null && f.ratio < 4.5);
        expect(failing.length === 0, `under 4.5:1: ${failing.map((f) => `${f.sel} ${f.ratio.toFixed(2)}`).join(', ')}`);
        const low = await lowContrastText(page);
        expect(low.length === 0, `text under 4.5:1 on the page:\n${low.join('\n')}`);
      });
    },
  },
  {
    name: 'first visit: at 390 px the presets read in full, class names fit, tap targets are >= 24 px',
    run: async ({ browser, baseUrl }) =>
      withPage(browser, baseUrl, { width: 390, height: 800 }, async (page) => {
        const cut = await page.$$eval('#preset-table td.preset-description', (tds) =>
          tds.filter((td) => td.getBoundingClientRect().right > td.closest('.table-scroll').getBoundingClientRect().right + 1 || td.scrollWidth > td.clientWidth + 1).length,
        );
        expect(cut === 0, `${cut} preset descriptions run past the table's edge`);
        const truncated = await page.$$eval('.class-name-input', (inputs) => inputs.filter((i) => i.scrollWidth > i.clientWidth + 1).map((i) => i.value));
        expect(truncated.length === 0, `class names cut off: ${truncated.join(', ')}`);
        const small = await page.$$eval('button, input[type="checkbox"], input[type="radio"], select, .chip-x', (els) =>
          els
            .filter((e) => !e.closest('.visually-hidden') && !e.classList.contains('visually-hidden'))
            .map((e) => [e, e.getBoundingClientRect()])
            .filter(([, r]) => r.width > 0 && (r.width < 24 || r.height < 24))
            .map(([e, r]) => `${e.id || e.className || e.tagName} ${Math.round(r.width)}x${Math.round(r.height)}`),
        );
        expect(small.length === 0, `${small.length} tap targets under 24 px: ${small.slice(0, 12).join(', ')}`);
        await page.evaluate(() => document.querySelector('#gallery').scrollIntoView());
        await shoot(page, 'firstvisit-gallery-390');
      }),
  },
  {
    name: 'first visit: charts offer normalized time, show values under the pointer, and say when series coincide',
    run: async ({ browser, baseUrl }) => {
      for (const [scheme, width] of LOOKS) {
        await withPage(browser, baseUrl, { scheme, width, height: 800 }, async (page) => {
          await runChurnToEnd(page);
          await page.check('#axis-progress');
          await showSection(page, '#charts');
          const box = await page.locator('#throughput-chart').boundingBox();
          await page.mouse.move(box.x + box.width * 0.6, box.y + box.height / 2);
          await page.waitForSelector('#chart-tooltip', { timeout: 5_000 });
          const rows = await page.$$eval('#chart-tooltip li', (lis) => lis.map((li) => li.textContent));
          expect(rows.length === 2 && rows.every((r) => /\d ops\/ms$/.test(r)), `the tooltip gives each policy's value: ${JSON.stringify(rows)}`);
          expect(/%$/.test(await page.textContent('#chart-tooltip strong')), 'on the normalized axis the tooltip reads a percentage');
          await shoot(page, `firstvisit-charts-normalized-tooltip-${scheme}-${width}`);
        });
      }
      await withPage(browser, baseUrl, {}, async (page) => {
        await page.selectOption('#speed', { label: 'max' });
        await page.click(`tr[data-preset="${BASELINE}"] button.run`);
        await waitFinished(page);
        await showSection(page, '#charts');
        const box = await page.locator('#throughput-chart').boundingBox();
        await page.mouse.move(box.x + box.width * 0.5, box.y + box.height / 2);
        await page.waitForSelector('#chart-tooltip');
        const rows = await page.$$eval('#chart-tooltip li', (lis) => lis.map((li) => li.textContent));
        expect(rows.some((r) => r.includes('exact (same as global)')), `identical series are named as such: ${JSON.stringify(rows)}`);
      });
    },
  },
  {
    name: 'first visit: "loop until stopped" keeps a loop running to fire writes into',
    run: async ({ browser, baseUrl }) =>
      withPage(browser, baseUrl, {}, async (page) => {
        await loadPreset(page, BASELINE);
        await page.check('#loop-mode');
        await page.selectOption('#speed', { label: '1×' });
        await page.click('#run');
        await page.waitForTimeout(1500);
        expect((await page.textContent('#run-state')).trim() === 'running', 'after 1.5 s at 1x the looping run is still going');
        const before = Number(await page.getAttribute('#relink-count', 'data-value'));
        await page.selectOption('#fire-class', 'Hot');
        await page.click('#fire-write');
        await page.waitForFunction(() => /Fired/.test(document.querySelector('.fire-outcome').textContent), null, { timeout: 5_000 });
        await page.waitForFunction((n) => Number(document.querySelector('#relink-count').dataset.value) > n, before, { timeout: 10_000 });
        await page.click('#run');
        // The page re-renders after the click's task; read the state once it has (a read right
        // after the click saw the old 'running' in 1 of 4 runs at load 8-9).
        const paused = await page
          .waitForFunction(() => document.querySelector('#run-state')?.textContent.trim() === 'paused', null, { timeout: 5_000 })
          .then(() => true, () => false);
        expect(paused, 'Pause stops the loop');
      }),
  },
  {
    name: 'first visit: Ctrl+Z / Ctrl+Shift+Z undo and redo form and text edits',
    run: async ({ browser, baseUrl }) => {
      for (const [scheme, width] of LOOKS) {
        await withPage(browser, baseUrl, { scheme, width, height: 800 }, async (page) => {
          await loadPreset(page, BASELINE);
          const original = await page.inputValue('#dsl-text');
          await page.selectOption('select[aria-label="Metaclass of Hot"]', 'expando');
          await page.waitForFunction(() => document.querySelector('#dsl-text').value.includes('class Hot metaclass expando'));
          const afterForm = await page.inputValue('#dsl-text');
          await page.click('#dsl-text');
          await page.keyboard.press('Control+End');
          await page.keyboard.type('\nclass Typed');
          await page.waitForFunction(() => document.querySelector('#dsl-text').value.includes('class Typed'));
          await page.keyboard.press('Control+z');
          await page.waitForFunction((t) => document.querySelector('#dsl-text').value === t, afterForm, { timeout: 5_000 });
          await page.keyboard.press('Control+z');
          await page.waitForFunction((t) => document.querySelector('#dsl-text').value === t, original, { timeout: 5_000 });
          // The form follows once the engine worker has read the undone text.
          await page.waitForFunction(() => document.querySelector('select[aria-label="Metaclass of Hot"]')?.value !== 'expando', null, { timeout: 5_000 }).catch(() => {});
          const hot = await page.inputValue('select[aria-label="Metaclass of Hot"]');
          expect(hot !== 'expando', `the form shows the undone metaclass (${hot})`);
          await page.keyboard.press('Control+Shift+z');
          await page.waitForFunction((t) => document.querySelector('#dsl-text').value === t, afterForm, { timeout: 5_000 });
          await page.click('#undo');
          await page.waitForFunction((t) => document.querySelector('#dsl-text').value === t, original, { timeout: 5_000 });
          const colours = await page.evaluate(() => ({
            same: document.querySelector('.dsl-highlight').textContent === document.querySelector('#dsl-text').value + '\n',
            keywords: document.querySelectorAll('.dsl-highlight .tok-kw').length,
          }));
          expect(colours.same && colours.keywords > 10, `the highlighted copy matches the text: ${JSON.stringify(colours)}`);
          await showSection(page, '#editor');
          await shoot(page, `firstvisit-undo-${scheme}-${width}`);
        });
      }
    },
  },
  {
    name: 'first visit: a new blank scenario from the form, and the form says where to edit what it cannot',
    run: async ({ browser, baseUrl }) =>
      withPage(browser, baseUrl, {}, async (page) => {
        await loadPreset(page, BASELINE);
        await page.click('button[aria-label="Delete class Unrelated"]');
        await page.waitForSelector('#editor-error');
        const why = await page.textContent('#editor-error');
        expect(/scenario text/.test(why), `deleting a class that setup names should say where to change that: ${why}`);
        await page.click('#new-scenario');
        await page.waitForFunction(() => document.querySelector('#dsl-text').value.includes('scenario "untitled"'));
        expect((await page.locator('.lane .class-node[data-class="A"]').count()) > 0, 'the blank scenario is drawn');
        await page.click('#undo');
        await page.waitForFunction((p) => document.querySelector('#dsl-text').value.includes(p), BASELINE);
      }),
  },
];
