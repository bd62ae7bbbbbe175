// End-to-end checks of the Runtimes gallery and the measured-runtime panel.
//
//   export const checks = [{ name, run: async ({ page, context, browser, baseUrl, screenshot, log }) => … }]
//
// Each check opens its own page (fresh storage). `E2E_ONLY=runtimes` runs just these.
// Screenshots (light and dark) go to tests/e2e/artifacts/runtimes-*.png.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, shoot, waitFinished, withFreshPage } from './common.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const RESULTS = path.join(HERE, '..', '..', '..', 'probes', 'results');
const RUNTIMES = ['groovy', 'cpython', 'pypy', 'ruby', 'jruby', 'node'];

/** The fit runs one policy per timer task: wait for its verdict. */
async function fitted(page, runtime) {
  await page.waitForSelector(`#measured-summary[data-runtime="${runtime}"]`, { timeout: 15_000 });
  await page.waitForSelector('#measured-verdict', { timeout: 30_000 });
}

export const checks = [
  {
    name: 'runtimes: six gallery rows name their closest policy and source; Measured loads the scenario and its fitted result',
    run: async ({ browser, baseUrl, log }) =>
      withFreshPage(browser, baseUrl, '#measured', async (page) => {
        const rows = await page.$$eval('tr.runtime-row', (trs) =>
          trs.map((tr) => ({
            id: tr.dataset.runtime,
            badge: tr.querySelector('.policy-badge')?.textContent,
            source: tr.querySelector('.source code')?.textContent ?? '',
            measured: !!tr.querySelector('button.measured-link'),
          })),
        );
        expect(JSON.stringify(rows.map((r) => r.id).sort()) === JSON.stringify([...RUNTIMES].sort()), `runtime rows: ${JSON.stringify(rows)}`);
        for (const r of rows) {
          expect(r.badge && r.source.includes(':') && r.measured, `row ${r.id} lacks its policy, source or Measured button: ${JSON.stringify(r)}`);
        }
        // The badge is styled: a bordered pill, not bare text.
        const border = await page.$eval('tr[data-runtime="cpython"] .policy-badge', (e) => getComputedStyle(e).borderTopWidth);
        expect(border !== '0px', 'the policy badge has no style');

        await page.click('tr[data-runtime="cpython"] button.measured-link');
        await page.waitForFunction(() => document.querySelector('#dsl-text').value.includes('scenario "runtime_cpython"'));
        await fitted(page, 'cpython');
        const best = await page.getAttribute('#measured-verdict', 'data-best');
        expect(best === 'hierarchy', `CPython's closest shape should be hierarchy (docs/RUNTIMES.md), got ${best}`);
        const table = await page.$$eval('#measured-table tbody tr', (trs) => trs.map((tr) => tr.dataset.workload));
        expect(table.length === 17 && table.includes('fanout_root@8'), `measured table rows: ${JSON.stringify(table)}`);
        const current = await page.$$eval('#measured-table tr.current', (trs) => trs.map((tr) => tr.dataset.workload));
        expect(JSON.stringify(current) === '["fanout_root@8"]', `the loaded scenario's row is marked: ${JSON.stringify(current)}`);
        const heads = await page.$$eval('#measured-table thead th', (ths) => ths.map((th) => th.textContent.trim()));
        expect(heads[1] === 'measured' && heads.includes('global') && heads.includes('exact'), `columns: ${JSON.stringify(heads)}`);
        const measuredRoot = Number(await page.getAttribute('#measured-table tr[data-workload="fanout_root@8"] td.measured', 'data-value'));
        expect(measuredRoot > 1.1 && measuredRoot < 1.5, `CPython fanout_root@8 measured ${measuredRoot} (docs: 1.24)`);
        expect((await page.locator('#measured-chart g.strip').count()) === 17, 'one chart line per workload');
        const box = await page.locator('#measured-chart').boundingBox();
        expect(box && box.width > 300 && box.height > 150, `chart box ${JSON.stringify(box)}`);

        // The runtime's scenario runs under its lanes.
        await page.selectOption('#speed', { label: 'max' });
        await page.click('#run');
        await waitFinished(page);
        const lanes = await page.$$eval('#comparison-table tbody tr[data-policy]', (trs) => trs.map((tr) => tr.dataset.policy));
        expect(['global', 'exact', 'hierarchy'].every((p) => lanes.includes(p)), `lanes: ${JSON.stringify(lanes)}`);

        // Tall enough that the panel fits below the sticky top bar, which would cover its head.
        await page.setViewportSize({ width: 1440, height: 2400 });
        for (const scheme of ['light', 'dark']) {
          await page.emulateMedia({ colorScheme: scheme });
          await page.locator('#measured').scrollIntoViewIfNeeded();
          await shoot(page.locator('#measured'), `runtimes-measured-cpython-${scheme}`);
          // The gallery scrolls inside its panel: bring the Runtimes group up, then shoot the panel.
          await page.$eval('tr.runtime-row', (tr) => {
            const box = tr.closest('.gallery-scroll');
            box.scrollTop = tr.offsetTop - 80;
          });
          await page.locator('#gallery').scrollIntoViewIfNeeded();
          await shoot(page.locator('#gallery'), `runtimes-gallery-${scheme}`);
        }
        await page.emulateMedia({ colorScheme: 'light' });

        // Another runtime's Measured replaces the result; Groovy's rows are mostly too wide to read.
        await page.click('tr[data-runtime="groovy"] button.measured-link');
        await fitted(page, 'groovy');
        const wide = await page.locator('#measured-table tbody tr.wide').count();
        expect(wide >= 10, `Groovy's result marks its wide rows (docs: 15 of 17), found ${wide}`);
        expect((await page.locator('#measured-verdict .wide-note').count()) === 1, 'the verdict says how many rows are too wide');
        await shoot(page.locator('#measured'), 'runtimes-measured-groovy-light');
        // The panel's own picker fetches a reference result too (dist/results/, not compiled in).
        await page.selectOption('#measured-reference', 'node');
        await fitted(page, 'node');
        log(`# cpython fanout_root@8 measured ${measuredRoot.toFixed(2)}x, best ${best}; groovy wide rows ${wide}`);
      }),
  },
  {
    name: 'runtimes: a probe result imports from a file and from a paste; bad ones are refused with their place',
    run: async ({ browser, baseUrl }) =>
      withFreshPage(browser, baseUrl, '#measured', async (page) => {
        const file = (name, text) => ({ name, mimeType: 'application/json', buffer: Buffer.from(text) });
        const node = fs.readFileSync(path.join(RESULTS, 'node.json'), 'utf8');
        await page.setInputFiles('#measured-file', file('my-node.json', node));
        await fitted(page, 'node');
        expect((await page.innerText('#measured-summary')).includes('my-node.json'), 'the summary names the imported file');

        // A row the fit cannot read: refused, its line and column named, the last result kept.
        const badRow = node.replace('"iterations": 1000000', '"iterations": 0');
        expect(badRow !== node, 'the Node result has a 1000000-iteration row to break');
        await page.setInputFiles('#measured-file', file('broken.json', badRow));
        await page.waitForSelector('#measured-error');
        const rowError = await page.innerText('#measured-error');
        expect(/broken\.json/.test(rowError) && /\d+:\d+: rows\[0\] \(baseline\): iterations is 0/.test(rowError), `row error: ${rowError}`);
        expect((await page.getAttribute('#measured-summary', 'data-runtime')) === 'node', 'a refused import keeps the last result');

        // A paste with a syntax error: line:col and a caret under the offending line.
        await page.click('#measured-paste-toggle');
        await page.fill('#measured-paste-text', '{\n  "schema": "blast-radius-probe/1",\n  "rows": [,]\n}');
        await page.click('#measured-read');
        await page.waitForFunction(() => document.querySelector('#measured-error')?.textContent.includes('pasted text'));
        const pasteError = await page.innerText('#measured-error');
        expect(pasteError.includes('3:12') && pasteError.includes('"rows": [,]') && pasteError.includes('^'), `paste error: ${pasteError}`);
        await page.setViewportSize({ width: 1440, height: 2400 });
        await shoot(page.locator('#measured'), 'runtimes-import-error-light');

        // Not JSON at all: plain words (it was serde's "expected ident"), not the parser's tokens.
        await page.fill('#measured-paste-text', 'hello');
        await page.click('#measured-read');
        await page.waitForFunction(() => /this is not JSON/.test(document.querySelector('#measured-error')?.textContent || ''), null, { timeout: 10_000 });
        const notJson = await page.innerText('#measured-error');
        expect(!/ident|EOF/.test(notJson) && /starts with `h`/.test(notJson), `non-JSON error: ${notJson}`);

        // A good paste replaces the result and clears the refusal.
        await page.fill('#measured-paste-text', fs.readFileSync(path.join(RESULTS, 'pypy.json'), 'utf8'));
        await page.click('#measured-read');
        await fitted(page, 'pypy');
        expect((await page.locator('#measured-error').count()) === 0, 'a good paste clears the error');
        expect((await page.innerText('#measured-summary')).includes('pasted text'), 'the summary says it was pasted');

        // Clear empties the panel.
        await page.click('#measured-clear');
        await page.waitForFunction(() => !document.querySelector('#measured-summary'));
      }),
  },
];
