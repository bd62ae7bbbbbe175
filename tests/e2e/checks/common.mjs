// Helpers shared by the playground's end-to-end checks.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ARTIFACTS = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'artifacts');

/** A PNG of a check's own page, or of one element (a locator), in tests/e2e/artifacts (the
 *  runner's `screenshot` shoots the shared page). */
export async function shoot(page, name) {
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), timeout: 15_000 });
}

/** Exactly the `wanted` policies' lanes selected. */
export async function ensurePolicies(page, wanted) {
  for (const name of ['global', 'exact', 'hierarchy', 'hierarchy-v3', 'ideal']) {
    const box = page.locator(`#policy-${name}`);
    if ((await box.isChecked()) !== wanted.includes(name)) await box.click();
  }
}

export function expect(cond, message) {
  if (!cond) throw new Error(message);
}

/** The gallery has rendered (the page's first useful paint). */
export async function ready(page) {
  await page.waitForSelector('table#preset-table tbody tr', { state: 'visible', timeout: 30_000 });
}

/** A page in its own fresh context (empty storage), with page errors collected; `readyFn`
 *  waits for whatever the check needs beyond the gallery. */
export async function freshPage(browser, url, readyFn = ready) {
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(url, { waitUntil: 'load', timeout: 60_000 });
  await readyFn(page);
  return { context, page, errors };
}

/** Run `body(page)` on a fresh page that is ready once `readySelector` shows; it must raise no
 *  page error, and its context closes whatever happens. */
export async function withFreshPage(browser, url, readySelector, body) {
  const fresh = await freshPage(browser, url, async (p) => p.waitForSelector(readySelector, { timeout: 30_000 }));
  try {
    await body(fresh.page);
    expect(fresh.errors.length === 0, `page errors: ${fresh.errors.join('; ')}`);
  } finally {
    await fresh.context.close();
  }
}

/**
 * Every lane of the comparison table has finished and shows its value, and they are the lanes of
 * the scenario on screen: an entry just clicked is read by the engine worker first, and until its
 * answer the blast view shows the last scenario's lanes marked stale (a finished run, at max speed).
 */
export async function waitFinished(page, timeout = 90_000) {
  await page.waitForFunction(
    () => {
      const rows = [...document.querySelectorAll('#comparison-table tbody tr[data-policy]')];
      const own = !document.querySelector('#blast-view.stale');
      return own && rows.length > 0 && rows.every((r) => r.dataset.finished === 'true' && r.querySelector('td.ops[data-value]'));
    },
    null,
    { timeout },
  );
}

/** Scroll so `selector` sits just under the sticky top bar (screenshots show the section). */
export async function showSection(page, selector) {
  await page.evaluate((sel) => {
    const el = document.querySelector(sel);
    const bar = document.querySelector('.topbar');
    const barHeight = bar && getComputedStyle(bar).position === 'sticky' ? bar.offsetHeight : 0;
    if (el) window.scrollTo(0, el.getBoundingClientRect().top + window.scrollY - barHeight - 8);
  }, selector);
  await page.waitForTimeout(100);
}

/**
 * Paste `text` into the scenario text as a user does (select all, then a paste event: the page
 * takes a big text without putting it in the text box, then the engine worker reads it). The
 * text reaches the page in a task of its own first, as a user's clipboard is there already;
 * `ready` runs then, just before the paste (to start a clock that leaves that task out).
 */
export async function pasteScenario(page, text, ready = async () => {}) {
  await page.evaluate((text) => {
    window.__clipboard = new DataTransfer();
    window.__clipboard.setData('text/plain', text);
    document.querySelector('#dsl-text').select();
  }, text);
  await ready();
  await page.evaluate(() => {
    const area = document.querySelector('#dsl-text');
    const data = window.__clipboard;
    delete window.__clipboard;
    if (area.dispatchEvent(new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true }))) {
      area.value = data.getData('text/plain');
      area.dispatchEvent(new InputEvent('input', { bubbles: true }));
    }
  });
}

/** Click `click` and time it in the page: `first`, ms to the first DOM change; `done`, ms until
 *  `watched`'s `data-value` (its text when it has none) first matches the regex source
 *  `pattern`; either undefined when it did not happen within 10 s. */
export async function clickTimes(page, click, watched, pattern) {
  return page.evaluate(
    ([click, watched, pattern]) =>
      new Promise((resolve) => {
        const re = new RegExp(pattern);
        const t0 = performance.now();
        const at = {};
        const seen = () => {
          at.first ??= performance.now() - t0;
          const el = document.querySelector(watched);
          if (el && re.test(el.dataset.value ?? el.textContent)) {
            at.done = performance.now() - t0;
            observer.disconnect();
            resolve(at);
          }
        };
        const observer = new MutationObserver(seen);
        observer.observe(document.body, { subtree: true, childList: true, attributes: true, characterData: true });
        document.querySelector(click).click();
        setTimeout(() => (observer.disconnect(), resolve(at)), 10_000);
      }),
    [click, watched, pattern],
  );
}

/** A scenario text of `sites` sites over `classes` classes, all called in one loop (the scale
 *  checks' worlds, and `profile-open.mjs`'s). */
export function world(classes, sites) {
  const t = ['measure warmup 0 ops 1'];
  for (let i = 0; i < classes; i++) t.push(`class K${i} { m }`);
  for (let i = 0; i < sites; i++) t.push(`site s${i} = K${i % classes}.m`);
  const calls = [];
  for (let i = 0; i < sites; i++) calls.push(`call s${i}`);
  t.push(`op { loop 10 { ${calls.join(' ')} } }`);
  return t.join('\n') + '\n';
}
