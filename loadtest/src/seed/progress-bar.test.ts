import { describe, expect, it } from "vitest";
import { barLine, formatEta, progressBar } from "./progress-bar.js";

/** A stream that keeps what is written to it; `isTTY` and `columns` as a terminal (or a pipe) reports them. */
function capture(isTTY: boolean, columns?: number) {
  const chunks: string[] = [];
  const stream = { isTTY, columns, write: (s: string) => (chunks.push(s), true) } as unknown as NodeJS.WriteStream;
  return { stream, text: () => chunks.join("") };
}

describe("loadtest > progress bar", () => {
  it("formats the time left", () => {
    expect(formatEta(3.4)).toBe("3s");
    expect(formatEta(75)).toBe("1m15s");
    expect(formatEta(3725)).toBe("1h02m");
    expect(formatEta(Infinity)).toBe("?");
  });

  it("shows the share done, counts, rate and ETA around the track", () => {
    expect(barLine("players", "##--", { done: 500_000, total: 1_000_000, startDone: 0, elapsedMs: 2000 })).toBe(
      "players [##--]  50.0%  500,000/1,000,000  250,000/s  ETA 2s",
    );
  });

  it("measures the rate from where the bar started", () => {
    expect(barLine("applied", "", { done: 600, total: 1000, startDone: 400, elapsedMs: 1000 })).toContain("200/s  ETA 2s");
  });

  it("says done at the end and survives a zero elapsed time or total", () => {
    expect(barLine("applied", "", { done: 10, total: 10, startDone: 0, elapsedMs: 1000 })).toMatch(/100\.0%.*done$/);
    expect(barLine("applied", "", { done: 0, total: 10, startDone: 0, elapsedMs: 0 })).toMatch(/ETA \?$/);
    expect(barLine("applied", "", { done: 0, total: 0, startDone: 0, elapsedMs: 0 })).toMatch(/100\.0%.*done$/);
  });

  it("off a terminal prints plain lines: one at the first update, the final one at finish", () => {
    const out = capture(false);
    const bar = progressBar("players", 1000, out.stream);
    bar.update(100);
    bar.update(500); // the next plain line is due 5 s after the first
    bar.update(1000);
    bar.finish();
    bar.finish();
    bar.update(1000);
    const lines = out.text().split("\n");
    expect(out.text()).not.toContain("\x1b");
    expect(lines).toHaveLength(3);
    expect(lines[0]).toBe(`players [##${"-".repeat(22)}]  10.0%  100/1,000  0/s  ETA ?`);
    expect(lines[1]).toMatch(/^players \[#{24}\] 100\.0% {2}1,000\/1,000 {2}[\d,]+\/s {2}done$/);
    expect(lines[2]).toBe("");
  });

  it("on a terminal redraws one line in place, cut to the terminal's width, and ends it at finish", () => {
    const out = capture(true, 60);
    const bar = progressBar("applied ", 2_000_000, out.stream);
    bar.update(0);
    bar.update(1_000_000);
    bar.finish();
    const text = out.text();
    expect(text.endsWith("\n")).toBe(true);
    expect(text.split("\n")).toHaveLength(2); // one line, ended once
    const draws = [...text.matchAll(/\x1b\[1G(.*?)\x1b\[0K/g)].map((m) => m[1]); // cursor to column 1, line, clear to its end
    expect(draws[0]).toBe(`applied  [${"-".repeat(24)}]   0.0%  0/2,000,000  0/s  ETA ?`.slice(0, 60));
    expect(draws.at(-1)).toBe(`applied  [${"#".repeat(12)}${"-".repeat(12)}]  50.0%  1,000,000/2,000,000  `.slice(0, 60));
    expect(draws.every((d) => d!.length === 60)).toBe(true); // cut at the terminal's 60 columns
    expect(text).not.toContain("\x1b[?7l"); // the terminal's line wrapping is left on
  });

  it("finish without an update draws nothing", () => {
    const out = capture(false);
    progressBar("produced", 5, out.stream).finish();
    expect(out.text()).toBe("");
  });
});
