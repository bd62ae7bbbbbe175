// CPU profile of the page opening a big scenario file (`bash scripts/profile-open.sh`, which
// builds the page with its function names): V8's sampling profiler from the pick until the
// aggregated view is drawn, then the functions with the most self and total time. A tool for
// finding what a long task is made of, not a check: it asserts nothing.

import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { world } from './checks/common.mjs';

const DIST = path.resolve(process.env.PROFILE_DIST || 'dist');
const SITES = Number(process.env.PROFILE_SITES) || 1_000_000;
const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
const TYPES = { '.html': 'text/html', '.js': 'text/javascript', '.wasm': 'application/wasm', '.css': 'text/css', '.json': 'application/json' };

const server = http.createServer((req, res) => {
  const rel = decodeURIComponent(new URL(req.url, 'http://x').pathname).replace(/^\/blast-radius\//, '') || 'index.html';
  const file = path.resolve(DIST, rel);
  if (!file.startsWith(DIST + path.sep)) return res.writeHead(403).end();
  fs.readFile(file, (err, body) => {
    if (err) return res.writeHead(404).end();
    res.writeHead(200, { 'content-type': TYPES[path.extname(file)] || 'application/octet-stream' }).end(body);
  });
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'blast-profile-'));
const file = path.join(dir, 'scenario.blast');
fs.writeFileSync(file, world(Math.max(1, SITES / 10), SITES));
const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] });
try {
  const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
  await page.goto(`http://127.0.0.1:${server.address().port}/blast-radius/`, { waitUntil: 'load' });
  await page.waitForSelector('#dsl-text', { timeout: 30_000 });
  // The first visit's comparison and the worker's rehearsal are over by then.
  await page.waitForTimeout(1500);
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Profiler.enable');
  await cdp.send('Profiler.setSamplingInterval', { interval: 200 });
  await cdp.send('Profiler.start');
  const t0 = Date.now();
  await page.setInputFiles('#import-file', file);
  await page.waitForSelector(`.aggregate[data-sites="${SITES}"] .agg-class`, { timeout: 180_000 });
  const { profile } = await cdp.send('Profiler.stop');
  console.log(`# ${SITES} sites (${(fs.statSync(file).size / 1e6).toFixed(1)} MB): drawn ${Date.now() - t0} ms after the pick; ms of the main thread:`);
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of profile.nodes) for (const c of n.children || []) parent.set(c, n.id);
  const name = (n) => `${n.callFrame.functionName || '(anonymous)'} (${n.callFrame.url.split('/').pop() || 'native'})`;
  const self = new Map();
  const total = new Map();
  profile.samples.forEach((id, i) => {
    const ms = (profile.timeDeltas[i + 1] ?? 0) / 1000;
    self.set(name(byId.get(id)), (self.get(name(byId.get(id))) || 0) + ms);
    const seen = new Set();
    for (let at = id; at !== undefined; at = parent.get(at)) seen.add(name(byId.get(at)));
    for (const n of seen) total.set(n, (total.get(n) || 0) + ms);
  });
  const top = (m, k) => [...m.entries()].filter(([n]) => !/^\((idle|root|program)\)/.test(n)).sort((a, b) => b[1] - a[1]).slice(0, k);
  console.log('## self time');
  for (const [n, ms] of top(self, 25)) console.log(`${ms.toFixed(1).padStart(8)}  ${n.slice(0, 180)}`);
  console.log('## total time (the function and what it called)');
  for (const [n, ms] of top(total, 40)) console.log(`${ms.toFixed(1).padStart(8)}  ${n.slice(0, 180)}`);
} finally {
  await browser.close();
  server.close();
  fs.rmSync(dir, { recursive: true, force: true });
}
