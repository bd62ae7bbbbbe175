// End-to-end checks of compiled code in the blast view, the why panel's chain and
// the charts' deopt marks.
//
//   export const checks = [{ name, run: async ({ page, context, browser, baseUrl, screenshot, log }) => … }]
//
// Each check opens its own page (fresh storage). `E2E_ONLY=compiled` runs just these.
import { ensurePolicies, expect, shoot, showSection, waitFinished, withFreshPage } from './common.mjs';

const BODIES = 'fidelity_methodBodies';

/** The loop's compiled unit in a lane of the blast view: its deopts and tier. */
async function loopUnit(page, policy) {
  return page.$eval(`#blast-view figure.lane[data-policy="${policy}"] .unit[data-unit="loop 1"]`, (u) => ({
    deopts: Number(u.dataset.deopts),
    tier: u.dataset.tier,
    flashing: !!u.querySelector('.flash-box'),
  }));
}

export const checks = [
  {
    name: 'compiled: a deopt flashes the loop unit under global, the why panel shows the chain, the chart marks it',
    run: async ({ browser, baseUrl, log }) => {
      await withFreshPage(browser, baseUrl, '#dsl-text', async (page) => {
      await ensurePolicies(page, ['global', 'exact']);
      await page.click(`tr[data-preset="${BODIES}"] button.load`);
      await page.waitForFunction((want) => document.querySelector('#dsl-text').value.includes(`scenario "${want}"`), BODIES);
      await page.waitForSelector('#blast-view .compiled-units .unit[data-unit="loop 1"]', { timeout: 10_000 });
      let global = await loopUnit(page, 'global');
      expect(global.deopts === 0 && !global.flashing && global.tier === 'interpreted', `before the run: ${JSON.stringify(global)}`);
      // Step until a write finds the loop in C2 under global (the second op: the first climbs).
      let steps = 0;
      for (; steps < 400 && global.deopts === 0; steps++) {
        await page.click('#step');
        global = await loopUnit(page, 'global');
      }
      expect(global.deopts > 0, `no deopt under global after ${steps} steps`);
      expect(global.flashing, 'the deoptimized unit flashes');
      await showSection(page, '#blast-view');
      await shoot(page, 'compiled-deopt-flash');
      log(`# global deoptimized loop 1 after ${steps} steps: ${JSON.stringify(global)}`);
      const exact = await loopUnit(page, 'exact');
      expect(exact.deopts === 0 && !exact.flashing, `exact keeps the loop's dependencies: ${JSON.stringify(exact)}`);

      // The why panel: a relink of `format` (a site the loop inlines) carries the rest of the chain.
      // The sites relink at their next call, in the loop segment after the write: one more step.
      await page.selectOption('#why-site', 'format');
      const chain = page.locator('#why .why-lane[data-policy="global"] .deopt-chain').first();
      for (let i = 0; i < 5 && (await chain.count()) === 0; i++) await page.click('#step');
      await chain.waitFor({ timeout: 10_000 });
      const text = await chain.innerText();
      expect(/^↳ loop 1 deoptimized, (C2 again after [\d\u2009]+ iterations|below C2 so far)$/.test(text), `chain cell: ${text}`);
      const title = await chain.getAttribute('title');
      expect(/`write Unrelated\.dyn0` retired global → \w+’s fast chain was inlined in loop 1 → loop 1 deoptimized at iteration/.test(title), `chain: ${title}`);
      const summary = await page.innerText('#why .why-lane[data-policy="global"] .why-compiled');
      expect(summary.includes('loop 1') && /[1-9]\d* deopts?\b/.test(summary), `summary: ${summary}`);
      expect((await page.locator('#why .why-lane[data-policy="exact"] .deopt-chain').count()) === 0, 'no deopt under exact');
      // The selected site's inlining unit is outlined in the blast view.
      expect((await page.locator('#blast-view .unit.inlines-selected').count()) === 2, 'both lanes outline loop 1, which inlines format');
      await showSection(page, '#why');
      await shoot(page, 'compiled-why-chain');

      // Run to the end: deopts and recompiles add up; the chart's caption names the marks.
      await page.selectOption('#speed', { label: 'max' });
      await page.click('#run');
      await waitFinished(page);
      global = await loopUnit(page, 'global');
      expect(global.deopts >= 10 && global.tier === 'C2', `after the run: ${JSON.stringify(global)}`);
      const recompiles = await page.$eval('#blast-view figure.lane[data-policy="global"] .unit[data-unit="loop 1"] .unit-deopts', (e) => e.textContent);
      expect(recompiles === `${global.deopts} / ${global.deopts}`, `every deopt recompiled: ${recompiles}`);
      const caption = await page.innerText('#charts');
      expect(caption.includes('on a line marks a deopt'), 'the chart says what its deopt marks are');
      await showSection(page, '#charts');
      await shoot(page, 'compiled-charts');
      });
    },
  },
];
