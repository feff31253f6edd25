/**
 * Once a second: closes the recorders' interval (one point of the time series), prints the
 * progress line, and samples the process's memory for the client figures.
 */
import type { Operation } from "../workload/op-mix.js";
import type { LatencyRecorder } from "./latency-recorder.js";
import { formatProgress } from "./progress-line.js";

export interface TickerDeps {
  ops: LatencyRecorder<Operation>;
  lag: LatencyRecorder<"lag">;
  showLag: boolean;
  inFlight(): number;
  print(line: string): void;
  clock(): number;
  everyMs: number;
}

export function startTicker(d: TickerDeps) {
  const start = d.clock();
  let last = start;
  let peakRss = process.memoryUsage().rss;
  const tick = () => {
    const now = d.clock();
    const t = (now - start) / 1000;
    const point = d.ops.tick(t);
    const lagPoint = d.lag.tick(t).ops.lag;
    peakRss = Math.max(peakRss, process.memoryUsage().rss);
    d.print(formatProgress({ point, intervalSec: (now - last) / 1000, lag: d.showLag ? lagPoint : undefined, inFlight: d.inFlight() }));
    last = now;
  };
  const timer = setInterval(tick, d.everyMs);
  let stopped = false;
  return {
    /** Stops the timer and closes the last, partial interval (if it is not empty of time). Idempotent. */
    stop() {
      if (stopped) return;
      stopped = true;
      clearInterval(timer);
      if (d.clock() - last > 50) tick(); // 50 ms: a shorter tail would print a meaningless rate
    },
    /** Largest resident set size seen, bytes. */
    get peakRss() {
      return peakRss;
    },
  };
}
