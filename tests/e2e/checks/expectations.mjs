// End-to-end checks of the expectations panel.
//
//   export const checks = [{ name, run: async ({ page, context, browser, baseUrl, screenshot, log }) => … }]
//
// Each check opens its own page (fresh storage). `E2E_ONLY=expectations` runs just these.
import { expect, shoot, waitFinished, withFreshPage } from './common.mjs';

const CHURN = 'hotLoop_unrelatedMetaClassChurn';
/** Call-site presets and the Runtimes group's scenarios (the rows whose scenarios carry `expect` lines). */
const CALL_SITE_ROWS = ['groovy', 'oracle', 'fidelity', 'runtime'].map((f) => `tr[data-preset]:has(.family-${f})`).join(', ');
/** Model presets: their expectations are about variants (`expect before-fix / fifo >= 10x time`). */
const MODEL_ROWS = 'tr[data-preset^="records_"], tr[data-preset^="arena_"], tr[data-preset^="descriptor_"]';

/** Statuses of the panel's expectations, in order. */
async function statuses(page) {
  return page.$$eval('#expectations li.expectation', (items) => items.map((li) => li.dataset.status));
}

/** Click Run in the top bar and wait until every lane has finished. */
async function runToEnd(page) {
  await page.click('#run');
  await waitFinished(page);
  // The panel refreshes with the slow views, at once when the run stops.
  await page.waitForFunction(() => !document.querySelector('#expectations li[data-status="pending"]'), null, { timeout: 30_000 });
}

export const checks = [
  {
    name: 'expectations: every call-site and runtime preset states expectations and all pass in Chromium',
    run: async ({ browser, baseUrl, log }) =>
      withFreshPage(browser, baseUrl, '#expectations', async (page) => {
        await page.selectOption('#speed', { label: 'max' });
        const ids = await page.$$eval(CALL_SITE_ROWS, (rows) => rows.map((r) => r.dataset.preset));
        expect(ids.length >= 17, `expected the 11 call-site and 6 runtime presets, found ${ids.length}`);
        for (const id of ids) {
          await page.click(`tr[data-preset="${id}"] button.load`);
          await page.waitForFunction((want) => document.querySelector('#dsl-text').value.includes(`scenario "${want}"`), id);
          // Runs the expectations read but no lane shows yet: one click adds them.
          if (await page.locator('#expect-add-lanes').count()) await page.click('#expect-add-lanes');
          expect((await page.locator('#expect-add-lanes').count()) === 0, `${id}: lanes still missing after adding them`);
          await runToEnd(page);
          const got = await statuses(page);
          expect(got.length > 0, `${id}: no expectation in the panel`);
          expect(got.every((s) => s === 'pass'), `${id}: ${JSON.stringify(got)}`);
          log(`# ${id}: ${got.length} expectations pass`);
        }
      }),
  },
  {
    name: 'expectations: every model preset states expectations about its variants and all pass in Chromium',
    run: async ({ browser, baseUrl, log }) =>
      withFreshPage(browser, baseUrl, '#expectations', async (page) => {
        await page.selectOption('#speed', { label: 'max' });
        const ids = await page.$$eval(MODEL_ROWS, (rows) => rows.map((r) => r.dataset.preset));
        expect(ids.length >= 7, `expected the 7 model presets, found ${ids.length}`);
        for (const id of ids) {
          await page.click(`tr[data-preset="${id}"] button.load`);
          await page.waitForFunction((p) => document.querySelector('#blast-view')?.dataset.model && document.querySelector(`tr[data-preset="${p}"][aria-current="true"]`), id);
          await runToEnd(page);
          const got = await statuses(page);
          expect(got.length > 0, `${id}: no expectation in the panel`);
          expect(got.every((s) => s === 'pass'), `${id}: ${JSON.stringify(got)}`);
          log(`# ${id}: ${got.length} expectations pass`);
        }
      }),
  },
  {
    name: 'expectations: a failing expectation is marked in the gutter and its cause opens in the why panel',
    run: async ({ browser, baseUrl }) =>
      withFreshPage(browser, baseUrl, '#expectations', async (page) => {
        await page.selectOption('#speed', { label: 'max' });
        await page.click(`tr[data-preset="${CHURN}"] button.load`);
        await page.waitForFunction((want) => document.querySelector('#dsl-text').value.includes(want), CHURN);
        const text = await page.inputValue('#dsl-text');
        const failing = 'expect under global: write Unrelated.* relinks none of [hot]';
        const edited = `${text.trimEnd()}\n${failing}\n`;
        await page.fill('#dsl-text', edited);
        const failingLine = edited.split('\n').indexOf(failing) + 1;
        await page.waitForSelector('#expectations li.expectation >> nth=4');
        await runToEnd(page);
        const got = await statuses(page);
        expect(got.filter((s) => s === 'fail').length === 1 && got.filter((s) => s === 'pass').length === got.length - 1, JSON.stringify(got));
        const failed = page.locator('#expectations li[data-status="fail"]');
        expect((await failed.locator('.expect-text').innerText()).includes('write Unrelated.* relinks none of [hot]'), 'the failing row names its line');
        expect((await failed.locator('.expect-line').innerText()) === `line ${failingLine}`, 'the failing row shows its line');
        const gutter = await page.$$eval('.gutter .failed-line', (els) => els.map((e) => e.textContent.trim()));
        expect(JSON.stringify(gutter) === JSON.stringify([String(failingLine)]), `gutter marks ${JSON.stringify(gutter)}, expected line ${failingLine}`);
        // The cause: the unrelated write relinking the hot site under global.
        const cause = failed.locator('button.expect-cause').first();
        expect((await cause.getAttribute('data-site')) === 'hot', 'the cause is a relink of hot');
        await cause.click();
        await page.waitForSelector('#why-focus', { timeout: 10_000 });
        expect((await page.inputValue('#why-site')) === 'hot', 'the why panel shows the hot site');
        const focus = await page.locator('#why-focus').innerText();
        expect(focus.includes('write Unrelated.dyn0') && focus.includes('global'), `why panel focus: ${focus}`);
        await shoot(page.locator('.side'), 'expectations-failing');
        await page.locator('.dsl-editor').scrollIntoViewIfNeeded();
        await shoot(page.locator('.dsl-panel'), 'expectations-gutter');
        // The expectation travels with the scenario: a reload restores it from the autosave.
        await page.waitForTimeout(1500);
        await page.reload({ waitUntil: 'load' });
        await page.waitForSelector('#expectations li.expectation');
        expect((await page.inputValue('#dsl-text')).includes(failing), 'the autosave kept the expectation');
      }),
  },
];
