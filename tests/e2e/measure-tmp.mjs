import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';
import { execSync } from 'node:child_process';
import { chromium } from 'playwright-core';
const DIST = '/work/wt/tracepage/dist';
const server = http.createServer((req, res) => {
  let p = decodeURIComponent(req.url.split('?')[0]).replace(/^\/blast-radius\//, '/');
  if (p === '/') p = '/index.html';
  const f = path.join(DIST, p);
  if (!fs.existsSync(f)) { res.writeHead(404); return res.end(); }
  const types = { '.html': 'text/html', '.js': 'text/javascript', '.wasm': 'application/wasm', '.css': 'text/css' };
  res.writeHead(200, { 'content-type': types[path.extname(f)] || 'application/octet-stream' });
  fs.createReadStream(f).pipe(res);
}).listen(0);
const url = `http://127.0.0.1:${server.address().port}/blast-radius/`;
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu', '--enable-precise-memory-info'] });
const rss = () => Number(execSync(`ps -eo rss,args | grep -- '--type=renderer' | grep -v grep | awk '{s+=$1} END {print s}'`).toString()) / 1024;
const log = process.argv[2];
const size = fs.statSync(log).size;
for (let run = 1; run <= 2; run++) {
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await ctx.newPage();
  await page.goto(url);
  await page.waitForSelector('tr[data-trace]', { timeout: 30000 });
  await page.click('#pause').catch(() => {});
  await page.waitForTimeout(3000);
  await page.evaluate(() => { window.__lt = []; new PerformanceObserver((l) => l.getEntries().forEach((e) => window.__lt.push(e.duration))).observe({ type: 'longtask' }); });
  const rss0 = rss();
  let peak = rss0;
  const timer = setInterval(() => { peak = Math.max(peak, rss()); }, 100);
  const t0 = Date.now();
  await page.setInputFiles('#trace-file', log);
  await page.waitForSelector('#trace-view', { timeout: 300000 });
  const ms = Date.now() - t0;
  clearInterval(timer);
  const lt = await page.evaluate(() => window.__lt);
  console.log(`run ${run}: ${(size / 1e6).toFixed(1)} MB to its view in ${ms} ms; long tasks ${lt.length} (longest ${Math.max(0, ...lt).toFixed(0)} ms: ${lt.map((d) => d.toFixed(0)).join(', ')}); renderer RSS ${rss0.toFixed(0)} MB before, peak ${peak.toFixed(0)} MB (+${(peak - rss0).toFixed(0)} MB)`);
  console.log(await page.textContent('#trace-counts'));
  await ctx.close();
}
await browser.close(); server.close();
