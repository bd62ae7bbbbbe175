// End-to-end checks of a polymorphic site in the playground. The why panel
// names the receiver whose PIC entry each relink was, the blast view shows the megamorphic
// state, and the site list edits the receivers and the mix.
//
//   export const checks = [{ name, run: async ({ browser, baseUrl, log }) => … }]
//
// `E2E_ONLY=poly` runs just these.
import { ensurePolicies, expect, shoot, showSection, withFreshPage } from './common.mjs';

const PRESET = 'fidelity_megamorphicShapes';

export const checks = [
  {
    name: 'poly: a megamorphic site, the receiver of each relink in the why panel, receivers edited in the site list',
    run: async ({ browser, baseUrl, log }) => {
      await withFreshPage(browser, baseUrl, '#dsl-text', async (page) => {
      await ensurePolicies(page, ['global', 'exact', 'hierarchy']);
      await page.click(`tr[data-preset="${PRESET}"] button.load`);
      await page.waitForFunction((want) => document.querySelector('#dsl-text').value.includes(`scenario "${want}"`), PRESET);
      // Step until the second write has relinked the site under every lane.
      const relinks = (policy) =>
        page.$eval(`#blast-view figure.lane[data-policy="${policy}"] .site[data-site="shapes"]`, (g) => Number(g.dataset.relinks)).catch(() => 0);
      let steps = 0;
      for (; steps < 200 && (await relinks('exact')) < 2; steps++) await page.click('#step');
      const counts = { global: await relinks('global'), exact: await relinks('exact'), hierarchy: await relinks('hierarchy') };
      log(`# after ${steps} steps, shapes relinks: ${JSON.stringify(counts)}`);
      expect(counts.exact >= 2 && counts.hierarchy > counts.exact && counts.global > counts.exact, `one, three, every entry per write: ${JSON.stringify(counts)}`);
      const state = await page.$eval('#blast-view figure.lane[data-policy="exact"] .site[data-site="shapes"]', (g) => g.dataset.state);
      expect(state === 'megamorphic', `nine receivers in a PIC of 8: ${state}`);
      const label = await page.getAttribute('#blast-view figure.lane[data-policy="exact"] .site[data-site="shapes"]', 'aria-label');
      expect(label.includes('(Circle | Ellipse | Round | Square'), `the node names its receivers: ${label}`);

      await page.selectOption('#why-site', 'shapes');
      const lane = (policy) => `#why .why-lane[data-policy="${policy}"]`;
      await page.waitForSelector(`${lane('exact')} .why-receivers`);
      const receivers = await page.innerText(`${lane('exact')} .why-receivers`);
      expect(/Round ×5 (cached )?\d+ relinks?/.test(receivers) && receivers.includes('Circle ×30'), `receivers line: ${receivers}`);
      const targets = async (policy) => page.$$eval(`${lane(policy)} table.history tbody td[data-label="target"]`, (tds) => tds.map((t) => t.textContent));
      const exact = await targets('exact');
      expect(exact.length > 0 && exact.every((t) => t.startsWith('Round entry: ')), `exact relinks Round's entry only: ${exact.join(' | ')}`);
      const hierarchy = new Set((await targets('hierarchy')).map((t) => t.split(' entry')[0]));
      expect(['Round', 'Circle', 'Ellipse'].every((c) => hierarchy.has(c)) && hierarchy.size === 3, `hierarchy: Round and its subclasses: ${[...hierarchy]}`);
      await showSection(page, '#why');
      await shoot(page, 'poly-why-receivers');
      await showSection(page, '#blast-view');
      await shoot(page, 'poly-blast-view');

      // The site list shows the other receivers and the mix, and edits them.
      const input = page.locator('input[aria-label="Other receiver classes and mix of shapes"]');
      expect((await input.inputValue()) === 'Ellipse, Round, Square, Rect, Tri, Pent, Hex, Star mix 30/15/5/15/10/10/5/5/5', `shown: ${await input.inputValue()}`);
      await input.fill('Ellipse mix 70/30');
      await input.press('Tab');
      await page.waitForFunction(() => document.querySelector('#dsl-text').value.includes('site shapes = Circle.area, Ellipse.area mix 70/30'), null, { timeout: 5_000 });
      await input.fill('Ellipse mix 70/0');
      await input.press('Tab');
      await page.waitForSelector('#editor-error');
      const refusal = await page.textContent('#editor-error');
      expect(refusal.includes('a mix weight is at least 1'), `a zero weight is refused: ${refusal}`);
      await showSection(page, '#editor');
      await shoot(page, 'poly-site-list');
      });
    },
  },
];
