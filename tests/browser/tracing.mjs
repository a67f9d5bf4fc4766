// Chromium tracing for the browser tests: the page thread's long tasks with the CPU time they
// took (shared by live.test.mjs and tail-million.test.mjs), and the memory of the page's processes.
import fs from 'node:fs';

/**
 * Records the page's main-thread tasks with Chromium's tracing; `stop()` resolves with those over
 * 50 ms as { wallMs, cpuMs }. A task whose CPU time is a fraction of its wall time waited for a core:
 * the machine was busy with other work, which is worth knowing when a long task shows up.
 */
export async function traceLongTasks(p) {
  const cdp = await p.context().newCDPSession(p);
  const events = [];
  cdp.on('Tracing.dataCollected', ({ value }) => events.push(...value));
  const complete = new Promise((resolve) => cdp.once('Tracing.tracingComplete', resolve));
  await cdp.send('Tracing.start', { categories: 'toplevel', transferMode: 'ReportEvents' });
  return async () => {
    await cdp.send('Tracing.end');
    await complete;
    await cdp.detach();
    // the renderers' main threads (the page is the only one at work)
    const mainThreads = new Set(events.filter((e) => e.name === 'thread_name' && e.args.name === 'CrRendererMain').map((e) => `${e.pid}:${e.tid}`));
    return events
      .filter((e) => e.name === 'ThreadControllerImpl::RunTask' && e.dur > 50_000 && mainThreads.has(`${e.pid}:${e.tid}`))
      .map((e) => ({ wallMs: Math.round(e.dur / 1000), cpuMs: Math.round((e.tdur ?? 0) / 1000) }));
  };
}

/**
 * The memory the page uses now: its JavaScript heap (the page thread's), and the resident memory of
 * the browser's renderer processes (the page and its workers), read from /proc: the descendants of
 * the Chromium run on `profile` (launchChromium's). In MiB.
 */
export async function pageMemory(p, profile) {
  const cdp = await p.context().newCDPSession(p);
  let metrics;
  try {
    await cdp.send('Performance.enable');
    ({ metrics } = await cdp.send('Performance.getMetrics'));
  } finally {
    await cdp.detach();
  }
  const metric = (name) => metrics.find((m) => m.name === name)?.value ?? 0;
  const procs = [];
  for (const pid of fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const cmdline = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ');
      const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
      procs.push({ pid, ppid: /PPid:\s+(\d+)/.exec(status)[1], rss: Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) * 1024, cmdline });
    } catch {
      /* gone meanwhile */
    }
  }
  const root = procs.find((x) => x.cmdline.includes(profile) && !x.cmdline.includes('--type='));
  const ours = new Set(root ? [root.pid] : []);
  for (let grew = true; grew;) {
    grew = false;
    for (const x of procs)
      if (!ours.has(x.pid) && ours.has(x.ppid)) {
        ours.add(x.pid);
        grew = true;
      }
  }
  const renderers = procs.filter((x) => ours.has(x.pid) && x.cmdline.includes('--type=renderer'));
  const mib = (n) => Math.round(n / 1048576);
  return {
    jsHeapUsedMiB: mib(metric('JSHeapUsedSize')),
    jsHeapTotalMiB: mib(metric('JSHeapTotalSize')),
    renderersRssMiB: mib(renderers.reduce((sum, x) => sum + x.rss, 0)),
    renderers: renderers.length,
  };
}
