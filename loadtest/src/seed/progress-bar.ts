/**
 * A terminal progress bar: `players [########--------]  52.1%  521,000/1,000,000  143,210/s  ETA 3s`,
 * drawn by cli-progress. On a terminal it redraws one line in place (at most every 200 ms,
 * cut to the terminal's width); otherwise (a pipe, a log file) it prints a plain line every
 * 5 s. The rate is the average since the bar's first update (which may start above 0: a
 * bar that picks up work already under way), and the ETA follows from it: cli-progress's
 * own ETA (a moving window of the last updates) is not used.
 *
 * cli-progress redraws on a timer until the bar is finished: call `finish` in a `finally`,
 * so a failed step does not leave a bar drawing under what follows.
 */
import cliProgress from "cli-progress";

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

export interface BarState {
  done: number;
  total: number;
  /** Where the bar stood at its first update: the rate counts from there. */
  startDone: number;
  /** Since the first update. */
  elapsedMs: number;
}

/** The bar's line around `bar` (the filled/empty track cli-progress draws): share done, counts, rate, ETA. */
export function barLine(label: string, bar: string, s: BarState): string {
  const fraction = s.total > 0 ? Math.min(1, s.done / s.total) : 1;
  const rate = s.elapsedMs > 0 ? ((s.done - s.startDone) / s.elapsedMs) * 1000 : 0;
  const eta = s.done >= s.total ? "done" : rate > 0 ? `ETA ${formatEta((s.total - s.done) / rate)}` : "ETA ?";
  return `${label} [${bar}] ${(fraction * 100).toFixed(1).padStart(5)}%  ${int.format(s.done)}/${int.format(s.total)}  ${int.format(rate)}/s  ${eta}`;
}

export interface ProgressBar {
  update(done: number): void;
  /**
   * Draws the last update as the final state and ends the line (nothing when there was no
   * update: no line was started). Later calls do nothing.
   */
  finish(): void;
}

export function progressBar(label: string, total: number, out: NodeJS.WriteStream = process.stderr): ProgressBar {
  const tty = out.isTTY === true;
  let startDone = 0;
  let state: "new" | "drawing" | "finished" = "new";
  const bar = new cliProgress.SingleBar({
    stream: out,
    fps: 5, // a terminal: at most every 200 ms
    noTTYOutput: true, // not a terminal: a plain line...
    notTTYSchedule: 5000, // ...every 5 s
    linewrap: true, // cut the line to the terminal's width; leave the terminal's own wrapping alone
    clearOnComplete: !tty, // off a terminal the final line already ends with a newline: no empty line after it
    barsize: BAR,
    barCompleteChar: "#",
    barIncompleteChar: "-",
    format: (options, params) =>
      barLine(label, cliProgress.Format.BarFormat(params.progress, options), {
        done: params.value,
        total: params.total,
        startDone,
        elapsedMs: (params.stopTime ?? Date.now()) - params.startTime,
      }),
  });
  return {
    update(done) {
      if (state === "drawing") return bar.update(done);
      if (state === "finished") return;
      startDone = done;
      bar.start(total, done); // the clock starts here
      state = "drawing";
    },
    finish() {
      if (state === "drawing") bar.stop(); // draws the final state and ends the line
      state = "finished";
    },
  };
}
