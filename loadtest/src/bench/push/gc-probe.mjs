// The push bench's memory probe, preloaded into its cluster's services (NODE_OPTIONS: --expose-gc
// --import <this file>; push-cluster.ts). On SIGUSR2 the process collects all its garbage and
// prints one line: its V8 heap in use then (what it holds live) and its resident set. Nothing runs
// until the signal: the services behave as without it.
process.on("SIGUSR2", () => {
  const t0 = performance.now();
  globalThis.gc?.();
  const m = process.memoryUsage();
  process.stdout.write(
    `${JSON.stringify({ level: 30, msg: "bench gc probe", gc: typeof globalThis.gc === "function", heapUsed: m.heapUsed, rss: m.rss, gcMs: performance.now() - t0 })}\n`,
  );
});
