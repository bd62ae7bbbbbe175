// End-to-end checks that the scenario text's error box says what is wrong in words a person
// can act on: an unclosed `{` is named where it was opened (not where the parser gave up),
// and a pasted 10 MB word is shown cut, with its length, instead of copied whole into the box.
//
//   export const checks = [{ name, run: async ({ browser, baseUrl }) => … }]
//
// Each check opens its own page in a fresh context (empty storage).
import { expect, pasteScenario, shoot, withFreshPage } from './common.mjs';

/** `class Circle` misses its `}` (line 5): the next classes were read as its methods. */
const UNCLOSED = [
  'scenario "shapes"',
  'class Shape { area }',
  'class Square extends Shape { side }',
  'class Rect extends Shape { w h }',
  'class Circle extends Shape { radius',
  'class Hex extends Shape { n }',
  'site s = Shape.area',
  'op { loop 10 { call s } }',
  '',
].join('\n');

const errorText = (page) => page.$eval('#dsl-error', (el) => el.textContent);

export const checks = [
  {
    name: 'messages: an unclosed { is named at the line and column it was opened',
    run: async ({ browser, baseUrl }) => {
      await withFreshPage(browser, baseUrl, '#dsl-text', async (page) => {
        await page.fill('#dsl-text', UNCLOSED);
        await page.waitForSelector('#dsl-error', { timeout: 10_000 });
        const text = await errorText(page);
        console.log(`# unclosed brace: ${text.trim()}`);
        expect(/opened at 5:28 is not closed/.test(text), `the error names the { opened at 5:28: ${text}`);
        expect(!/expected a method name/.test(text), `the error does not blame the next class: ${text}`);
        await shoot(page, 'messages-unclosed-brace');
      });
    },
  },
  {
    name: 'messages: a 10 MB word is shown cut, with its length',
    run: async ({ browser, baseUrl }) => {
      await withFreshPage(browser, baseUrl, '#dsl-text', async (page) => {
        const word = 10_000_000;
        await pasteScenario(page, `class A { m }\nsite s = A.m\n${'Z'.repeat(word)}\n`);
        await page.waitForSelector('#dsl-error', { timeout: 60_000 });
        const text = await errorText(page);
        console.log(`# 10 MB word: the error box holds ${text.length} characters: ${text.trim().slice(0, 200)}`);
        expect(text.length < 1_000, `the error box holds ${text.length} characters (the word was ${word})`);
        expect(text.includes(`${word} characters`), `the cut word says its length: ${text.slice(0, 300)}`);
      });
    },
  },
];
