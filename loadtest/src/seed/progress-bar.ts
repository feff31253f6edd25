/**
 * A terminal progress bar: `players [########--------] 52.1%  521,000/1,000,000  143,210/s  ETA 3s`.
 * On a terminal it redraws one line in place (at most every 200 ms); otherwise (a pipe, a
 * log file) it prints a plain line every 5 s. The rate is the average since the bar's first
 * update (which may start above 0: a bar that picks up work already under way).
 */

const int = new Intl.NumberFormat("en-US", { maximumFractionDigits: 0 });
const BAR = 24;

/** 75s -> "1m15s", 3725s -> "1h02m". */
export function formatEta(seconds: number): string {
  if (!Number.isFinite(seconds) || seconds < 0) return "?";
  const s = Math.round(seconds);
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, "0")}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, "0")}m`;
}

/** The bar's text for `done` of `total`, `elapsedMs` after it stood at `startDone`. */
export function renderBar(label: string, done: number, total: number, elapsedMs: number, startDone = 0): string {
  const fraction = total > 0 ? Math.min(1, done / total) : 1;
  const filled = Math.round(fraction * BAR);
  const rate = elapsedMs > 0 ? ((done - startDone) / elapsedMs) * 1000 : 0;
  const eta = done >= total ? "done" : rate > 0 ? `ETA ${formatEta((total - done) / rate)}` : "ETA ?";
  return `${label} [${"#".repeat(filled)}${"-".repeat(BAR - filled)}] ${(fraction * 100).toFixed(1).padStart(5)}%  ${int.format(done)}/${int.format(total)}  ${int.format(rate)}/s  ${eta}`;
}

export interface ProgressBar {
  update(done: number): void;
  /** Draws the final state and ends the line. */
  finish(done: number): void;
}

export function progressBar(label: string, total: number, out: NodeJS.WriteStream = process.stderr): ProgressBar {
  let start = performance.now();
  let startDone: number | undefined;
  const tty = out.isTTY === true;
  const everyMs = tty ? 200 : 5000;
  let last = -Infinity;
  const draw = (done: number, final: boolean) => {
    const line = renderBar(label, done, total, performance.now() - start, startDone ?? 0);
    out.write(tty ? `\r${line}\x1b[K${final ? "\n" : ""}` : `${line}\n`);
  };
  return {
    update(done) {
      const now = performance.now();
      if (startDone === undefined) {
        startDone = done;
        start = now;
      }
      if (now - last < everyMs) return;
      last = now;
      draw(done, false);
    },
    finish: (done) => draw(done, true),
  };
}
