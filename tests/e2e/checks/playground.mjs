// End-to-end checks of the playground page, run in order against one page.
//
//   export const checks = [{ name, run: async ({ page, context, browser, baseUrl, screenshot }) => … }]
//
// `baseUrl` ends in /blast-radius/; `screenshot(name)` saves a PNG of `page`. Checks that need
// a clean browser (share link, hostile links) open their own context and close it again.
import { clickTimes, ensurePolicies, expect, freshPage as freshContextPage, ready as galleryReady, showSection, waitFinished } from './common.mjs';

const CHURN = 'hotLoop_unrelatedMetaClassChurn';
const BASELINE = 'hotLoop_baseline';
const CYCLIC_DSL = 'scenario "cyclic"\nclass A extends B { m }\nclass B extends A\nsite s = A.m\nop { loop 10 { call s } }\n';
const HUGE_DSL = 'scenario "huge"\nclass A { m }\nsite s = A.m\nop { loop 99999999999999999999999999 { call s } }\n';

const fragment = (dsl) => `#s=1.${Buffer.from(dsl, 'utf8').toString('base64url')}`;

/** The gallery and the DSL view are there. */
async function ready(page) {
  await galleryReady(page);
  await page.waitForSelector('#dsl-text', { timeout: 30_000 });
}

async function relinks(page) {
  return Number(await page.getAttribute('#relink-count', 'data-value'));
}

async function opsPerMs(page, policy) {
  return Number(await page.getAttribute(`#comparison-table tr[data-policy="${policy}"] td.ops`, 'data-value'));
}

async function screenshotsFor(page, scheme, screenshot) {
  await page.emulateMedia({ colorScheme: scheme });
  await ensurePolicies(page, ['global', 'exact', 'hierarchy']);
  await page.selectOption('#speed', { label: '0.1×' });
  await page.click(`tr[data-preset="parentChild_parentMetaClassChurn"] button.run`);
  await page.waitForFunction(() => Number(document.querySelector('#virtual-time').dataset.value) > 40, null, { timeout: 30_000 });
  await showSection(page, '#gallery');
  await screenshot(`playground-gallery-${scheme}`);
  await showSection(page, '#blast-view');
  // A relink flashes for 0.9 s; under global they come every few frames at this speed.
  await page.waitForSelector('#blast-view .flash', { state: 'attached', timeout: 10_000 });
  await screenshot(`playground-blast-view-${scheme}`);
  await page.click('#run'); // pause, so the charts and table hold still
  await showSection(page, '#charts');
  await screenshot(`playground-charts-${scheme}`);
  await page.selectOption('#speed', { label: 'max' });
  await page.click('#run');
  await waitFinished(page);
  await showSection(page, '#comparison');
  await screenshot(`playground-comparison-${scheme}`);
}

export const checks = [
  {
    name: `playground: ${CHURN} runs to completion and exact is >= 10x global`,
    run: async ({ page, baseUrl, screenshot }) => {
      if (!page.url().startsWith(baseUrl)) await page.goto(baseUrl, { waitUntil: 'load' });
      await ready(page);
      await ensurePolicies(page, ['global', 'exact']);
      await page.selectOption('#speed', { label: 'max' });
      await page.click(`tr[data-preset="${CHURN}"] button.run`);
      await waitFinished(page);
      const global = await opsPerMs(page, 'global');
      const exact = await opsPerMs(page, 'exact');
      expect(global > 0 && exact > 0, `ops/ms must be positive: global ${global}, exact ${exact}`);
      expect(exact >= 10 * global, `exact ${exact} ops/ms is not >= 10x global ${global}`);
      const text = await page.inputValue('#dsl-text');
      expect(text.includes(CHURN), 'the DSL view shows the loaded preset');
      await showSection(page, '#comparison');
      await screenshot('playground-churn-finished');
    },
  },
  {
    name: 'playground: a write fired from the UI makes #relink-count move',
    run: async ({ page }) => {
      await page.click(`tr[data-preset="${BASELINE}"] button.load`);
      await page.waitForFunction((id) => document.querySelector('#dsl-text').value.includes(id), BASELINE);
      // Step through setup into the first loop segment: sites link, nothing relinks yet.
      for (let i = 0; i < 12 && Number(await page.getAttribute('#virtual-time', 'data-value')) === 0; i++) {
        await page.click('#step');
      }
      await page.click('#step');
      const before = await relinks(page);
      expect(before === 0, `the baseline relinks nothing by itself, got ${before}`);
      await page.selectOption('#fire-class', 'Hot');
      await page.fill('#fire-method', 'dynE2E');
      await page.click('#fire-write');
      await page.waitForFunction(() => /Fired/.test(document.querySelector('.fire-outcome').textContent));
      await page.click('#step');
      await page.click('#step');
      await page.waitForFunction((n) => Number(document.querySelector('#relink-count').dataset.value) > n, before, { timeout: 10_000 });
      expect((await relinks(page)) > before, '#relink-count did not increase');
    },
  },
  {
    // The engine runs only in the worker: a click's answer is a round trip. Printed, not timed
    // as a test (a shared machine's load decides it); the change itself is asserted.
    name: 'playground: Step on a small scenario shows the engine worker\'s step note (click to first change and to the note printed)',
    run: async ({ page, log }) => {
      await page.click(`tr[data-preset="${BASELINE}"] button.load`);
      await page.waitForFunction((id) => document.querySelector('#dsl-text').value.includes(id), BASELINE);
      await page.click('#reset');
      await page.waitForSelector('#blast-view figure.lane', { timeout: 30_000 });
      // The note, once it is the worker's (not "stepping…").
      const times = await clickTimes(page, '#step', '#step-note', '^(?!.*stepping).+');
      log(`# ${BASELINE}, Step: click to first DOM change ${times.first?.toFixed(1)} ms, to the worker's step note ${times.done?.toFixed(1)} ms`);
      expect(times.done !== undefined, `no step note from the worker within 10 s (first change at ${times.first} ms)`);
    },
  },
  {
    // A form edit is applied by the engine worker too (the page ships neither the editor's
    // operations nor the validator): a round trip. Printed, not timed as a test; the edit is
    // asserted, in the text and in the model's views.
    name: 'playground: a form edit of a small scenario comes back from the engine worker (click to the new class on screen printed)',
    run: async ({ page, log }) => {
      await page.click(`tr[data-preset="${BASELINE}"] button.load`);
      await page.waitForFunction((id) => document.querySelector('#dsl-text').value.includes(id), BASELINE);
      await page.fill('#new-class-name', 'E2eFormEdit');
      const times = await clickTimes(page, '#add-class', 'body', 'E2eFormEdit');
      log(`# ${BASELINE}, add a class: click to first DOM change ${times.first?.toFixed(1)} ms, to the new class on screen ${times.done?.toFixed(1)} ms`);
      expect(times.done !== undefined, `the new class did not show within 10 s (first change at ${times.first} ms)`);
      await page.waitForFunction(() => /^class E2eFormEdit\b/m.test(document.querySelector('#dsl-text').value), null, { timeout: 10_000 });
      expect(!(await page.isDisabled('#undo')), 'the form edit is an undo step');
      // Two more without waiting: one made while the other is applied edits its text (none lost).
      for (const name of ['E2eQuickOne', 'E2eQuickTwo']) {
        await page.fill('#new-class-name', name);
        await page.click('#add-class');
      }
      await page.waitForFunction(() => /^class E2eQuickTwo\b/m.test(document.querySelector('#dsl-text').value), null, { timeout: 10_000 });
      const text = await page.inputValue('#dsl-text');
      expect(['E2eFormEdit', 'E2eQuickOne', 'E2eQuickTwo'].every((n) => new RegExp(`^class ${n}\\b`, 'm').test(text)), `a class is missing:\n${text}`);
    },
  },
  {
    name: 'playground: a reload restores the autosaved scenario',
    run: async ({ page }) => {
      await page.reload({ waitUntil: 'load' });
      await ready(page);
      const text = await page.inputValue('#dsl-text');
      expect(text.includes(BASELINE), `after reload the DSL view should hold ${BASELINE}`);
    },
  },
  {
    name: 'playground: the share link opens the same scenario in a fresh browser context',
    run: async ({ page, browser }) => {
      // The link carries the speed too: pick one that is not the page's default.
      const speeds = await page.$$eval('#speed option', (os) => os.map((o) => o.textContent));
      const before = await page.$eval('#speed', (el) => el.options[el.selectedIndex].textContent);
      const speed = speeds.find((label) => label !== 'max' && label !== before) ?? speeds[0];
      await page.selectOption('#speed', { label: speed });
      await page.click('#share-button');
      await page.waitForSelector('#share-link');
      const link = await page.inputValue('#share-link');
      expect(link.includes('#s=2.') && link.includes('&v='), `unexpected share link ${link}`);
      const original = await page.inputValue('#dsl-text');
      await page.click('#policy-ideal');
      expect((await page.locator('#share-link').count()) === 0, 'the share strip closes once its link is out of date');
      await page.click('#policy-ideal');
      const fresh = await freshContextPage(browser, link, ready);
      try {
        // The link replaces the page's scenario and speed once the engine worker has read it: on
        // a loaded machine that answer comes after the gallery is ready (and the text may be the
        // default one already, so the speed says whether the link was applied).
        await fresh.page
          .waitForFunction(
            ([t, v]) => document.querySelector('#dsl-text').value === t && document.querySelector('#speed').selectedOptions[0]?.textContent === v,
            [original, speed],
            { timeout: 30_000 },
          )
          .catch(() => {});
        const text = await fresh.page.inputValue('#dsl-text');
        expect(text === original, 'the shared page should show exactly the same scenario text');
        expect(await fresh.page.locator('#policy-exact').isChecked(), 'the link carries the policies');
        const opened = await fresh.page.$eval('#speed', (el) => el.options[el.selectedIndex].textContent);
        expect(opened === speed, `the link carries the speed: ${speed} shared, ${opened} opened`);
        expect(fresh.errors.length === 0, `page errors: ${fresh.errors.join('; ')}`);
        // The link is consumed: edits made afterwards survive a reload (autosave wins).
        expect(!fresh.page.url().includes('#s='), `the fragment stays in the address bar: ${fresh.page.url()}`);
        await fresh.page.fill('#dsl-text', original.replace(/^scenario "[^"]*"/m, 'scenario "edited after opening a link"'));
        await fresh.page.waitForTimeout(600);
        await fresh.page.reload({ waitUntil: 'load' });
        await fresh.page.waitForSelector('#dsl-text', { timeout: 30_000 });
        const after = await fresh.page.inputValue('#dsl-text');
        expect(after.includes('edited after opening a link'), 'an edit made after opening a link must survive a reload');
      } finally {
        await fresh.context.close();
        await page.selectOption('#speed', { label: before }); // the shared page's later checks keep their speed
      }
    },
  },
  {
    name: 'playground: hostile fragments show an error banner and the page keeps working',
    run: async ({ browser, baseUrl }) => {
      const cases = [
        ['garbage', '#s=1.!!!%%%not-base64'],
        ['cyclic hierarchy', fragment(CYCLIC_DSL)],
        ['huge numbers', fragment(HUGE_DSL)],
        ['unknown version', '#s=99999999999999999999.AAAA'],
        // A link cut by a chat client: 4k + 1 characters of data.
        ['cut off', fragment(HUGE_DSL).slice(0, 5 + 4 * 20 + 1)],
      ];
      for (const [what, frag] of cases) {
        const fresh = await freshContextPage(browser, baseUrl + frag, ready);
        try {
          const { page, errors } = fresh;
          await page.waitForSelector('.banner-error', { timeout: 10_000 });
          const banner = await page.textContent('.banner-error');
          expect(/link/i.test(banner), `${what}: banner should explain the link: ${banner}`);
          if (what === 'cut off') expect(/looks cut off/.test(banner) && !/4k/.test(banner), `a cut link is named in plain words: ${banner}`);
          const text = await page.inputValue('#dsl-text');
          expect(!text.includes('cyclic') && !text.includes('huge'), `${what}: the hostile scenario must not load`);
          // Still alive: a preset runs.
          await page.click(`tr[data-preset="${BASELINE}"] button.run`);
          await page.waitForFunction(() => Number(document.querySelector('#virtual-time').dataset.value) > 0, null, { timeout: 10_000 });
          if (what === 'cyclic hierarchy') {
            // The same page also survives a hostile link arriving by hashchange.
            while ((await page.locator('.banner-error button').count()) > 0) await page.locator('.banner-error button').first().click();
            await page.evaluate((f) => { window.location.hash = f; }, fragment(CYCLIC_DSL.replace('cyclic', 'again')));
            await page.waitForSelector('.banner-error', { timeout: 10_000 });
            expect((await page.inputValue('#dsl-text')).includes(BASELINE), 'the running scenario stays after a bad hashchange');
          }
          expect(errors.length === 0, `${what}: page errors: ${errors.join('; ')}`);
        } finally {
          await fresh.context.close();
        }
      }
    },
  },
  {
    // A release build aborts at a panic without running any Rust (scripts/env.sh): the trap
    // leaves the module as an uncaught WebAssembly.RuntimeError, in a handler or a promise, and
    // index.html's script must turn it into the banner. Other page errors must not.
    name: 'playground: a WebAssembly trap, thrown or rejected, shows the internal-error banner; other errors do not',
    run: async ({ browser, baseUrl }) => {
      for (const how of ['thrown', 'rejected']) {
        const fresh = await freshContextPage(browser, baseUrl, ready);
        try {
          const { page, errors } = fresh;
          await page.evaluate(() => setTimeout(() => { throw new TypeError('not a trap'); }));
          await page.waitForTimeout(200);
          expect((await page.locator('#fatal-error').count()) === 0, 'a TypeError showed the internal-error banner');
          await page.evaluate((how) => {
            const trap = new WebAssembly.RuntimeError('unreachable');
            if (how === 'thrown') setTimeout(() => { throw trap; });
            else Promise.reject(trap);
          }, how);
          await page.waitForSelector('#fatal-error[role="alert"]', { timeout: 5_000 });
          const text = await page.textContent('#fatal-error');
          expect(/internal error/.test(text) && /unreachable/.test(text) && /autosaved/.test(text), `${how}: banner text: ${text}`);
          expect(errors.some((e) => e.includes('not a trap')), `${how}: the TypeError was not reported as a page error: ${errors.join('; ')}`);
        } finally {
          await fresh.context.close();
        }
      }
    },
  },
  {
    name: 'playground: screenshots in light and dark (gallery, blast view mid-flash, charts, comparison)',
    run: async ({ page, screenshot }) => {
      await screenshotsFor(page, 'light', screenshot);
      await screenshotsFor(page, 'dark', screenshot);
      await page.emulateMedia({ colorScheme: 'light' });
    },
  },
];
