// What the main thread's long tasks were made of, from a Chromium trace (Playwright's
// browser.startTracing / stopTracing): per task of `minMs` or more, the events inside it
// (script, style, layout, paint, message handling) by total time, with the task's wall and CPU
// time and its start after the trace's first event. Used by `scale.mjs` under
// E2E_TRACE=1 to choose what to move off the page; the longtask API only says how long.
export function longTaskSummary(buf, minMs = 50) {
  const onMain = mainThread(buf).filter((e) => e.dur);
  const tasks = onMain.filter((e) => e.name === 'RunTask' && e.dur >= minMs * 1000);
  const start = onMain.reduce((m, e) => Math.min(m, e.ts), Infinity);
  const out = [];
  for (const t of tasks) {
    const kids = onMain.filter((e) => e !== t && e.ts >= t.ts && e.ts + e.dur <= t.ts + t.dur);
    const by = {};
    for (const k of kids) by[k.name] = (by[k.name] || 0) + k.dur / 1000;
    const top = Object.entries(by).sort((a, b) => b[1] - a[1]).slice(0, 10).map(([n, d]) => `${n} ${d.toFixed(0)}`);
    out.push(`task ${(t.dur / 1000).toFixed(0)} ms (${((t.tdur ?? t.dur) / 1000).toFixed(0)} ms CPU) at +${((t.ts - start) / 1000).toFixed(0)} ms: ${top.join(', ')}`);
  }
  return out;
}

/**
 * The main thread's longest task in a trace, as wall time and as the thread's CPU time (`tdur`).
 * On a shared machine the wall time also counts the time the thread waited for a core; the CPU
 * time is the page's own work.
 */
export function longestTask(buf) {
  const tasks = mainThread(buf).filter((e) => e.name === 'RunTask' && e.dur);
  return { wallMs: Math.max(0, ...tasks.map((t) => t.dur / 1000)), cpuMs: Math.max(0, ...tasks.map((t) => (t.tdur ?? t.dur) / 1000)) };
}

/**
 * Whether a traced task (`longestTask`'s figures) waited for a core more than it ran: its wall
 * time is over twice its CPU time. Such a task is long because the machine is busy, not because
 * of the page: the checks assert the page's own work (CPU time) and print the wait.
 */
export const waitedForCore = (traced) => traced.wallMs > 2 * traced.cpuMs;

/**
 * V8's compiles on the main thread (trace categories `v8.wasm` and
 * `disabled-by-default-v8.compile`), by event name: a wasm function first called is compiled
 * there (`wasm.CompileLazy`), and while V8's background compile threads hold the cores that
 * compile waits for one. `inLong` counts those inside tasks of `minMs` or more.
 */
export function mainThreadCompiles(buf, minMs = 50) {
  const onMain = mainThread(buf);
  const long = onMain.filter((e) => e.name === 'RunTask' && e.dur >= minMs * 1000);
  const compiles = onMain.filter((e) => /compile/i.test(e.name) && /wasm|v8/i.test(e.cat));
  const byName = {};
  for (const c of compiles) byName[c.name] = (byName[c.name] || 0) + 1;
  const inLong = compiles.filter((c) => long.some((t) => c.ts >= t.ts && c.ts <= t.ts + t.dur)).length;
  const wasmLazy = compiles.filter((c) => c.name === 'wasm.CompileLazy');
  return { byName, inLong, wasmLazy: wasmLazy.length, wasmLazyMs: wasmLazy.reduce((a, c) => a + (c.dur || 0) / 1000, 0) };
}

/**
 * The complete events (`ph: 'X'`) of the traced page's main thread (`CrRendererMain`) in a trace.
 * A Chromium trace covers every renderer: the e2e run's shared page, a closing context's page.
 * The traced page's renderers are the processes of the frames `startTracing(page)` named
 * (`TracingStartedInBrowser`) and of what those frames navigated to (`FrameCommittedInBrowser`:
 * a navigation may swap the process). A trace without those events keeps every renderer.
 */
function mainThread(buf) {
  const events = JSON.parse(buf.toString()).traceEvents;
  const frames = new Set();
  const pids = new Set();
  for (const e of events) {
    if (e.name === 'TracingStartedInBrowser') {
      for (const f of e.args?.data?.frames ?? []) {
        frames.add(f.frame);
        pids.add(f.processId);
      }
    }
    const committed = e.name === 'FrameCommittedInBrowser' && e.args?.data;
    if (committed && frames.has(committed.frame)) pids.add(committed.processId);
  }
  const ours = (e) => pids.size === 0 || pids.has(e.pid);
  const main = new Set(events.filter((e) => e.name === 'thread_name' && e.args?.name === 'CrRendererMain' && ours(e)).map((e) => `${e.pid}:${e.tid}`));
  return events.filter((e) => main.has(`${e.pid}:${e.tid}`) && e.ph === 'X');
}
