import { describe, expect, it } from "vitest";
import { formatEta, renderBar } from "./progress-bar.js";

describe("loadtest > progress bar", () => {
  it("formats the time left", () => {
    expect(formatEta(3.4)).toBe("3s");
    expect(formatEta(75)).toBe("1m15s");
    expect(formatEta(3725)).toBe("1h02m");
    expect(formatEta(Infinity)).toBe("?");
  });

  it("shows the share done, counts, rate and ETA", () => {
    expect(renderBar("players", 500_000, 1_000_000, 2000)).toBe(
      "players [############------------]  50.0%  500,000/1,000,000  250,000/s  ETA 2s",
    );
  });

  it("measures the rate from where the bar started", () => {
    expect(renderBar("applied", 600, 1000, 1000, 400)).toContain("200/s  ETA 2s");
  });

  it("says done at the end and survives a zero elapsed time", () => {
    expect(renderBar("applied", 10, 10, 1000)).toMatch(/100\.0%.*done$/);
    expect(renderBar("applied", 0, 10, 0)).toMatch(/ETA \?$/);
  });
});
