import { describe, expect, it } from "vitest";
import { timetable } from "./rate-schedule.js";

describe("loadtest > rate schedule", () => {
  it("spaces requests evenly at the rate", () => {
    const t = timetable(200, 1000);
    expect(t.total).toBe(200);
    expect(t.dueAtMs(0)).toBe(0);
    expect(t.dueAtMs(1)).toBe(5);
    expect(t.dueAtMs(199)).toBe(995);
  });

  it("counts the requests due at a moment, including the one due exactly then", () => {
    const t = timetable(100, 1000); // every 10 ms
    expect(t.dueBy(-1)).toBe(0);
    expect(t.dueBy(0)).toBe(1);
    expect(t.dueBy(9.99)).toBe(1);
    expect(t.dueBy(10)).toBe(2);
    expect(t.dueBy(5000)).toBe(100); // never past the end
  });

  it("keeps the timetable when the caller falls behind: every missed request is due at once", () => {
    const t = timetable(1000, 10_000);
    expect(t.dueBy(250)).toBe(251); // a 250 ms stall: 251 requests due, none skipped
  });

  it("handles rates below one per second", () => {
    const t = timetable(0.5, 10_000);
    expect(t.total).toBe(5);
    expect(t.dueAtMs(1)).toBe(2000);
  });

  it("refuses a rate or duration that is not positive", () => {
    expect(() => timetable(0, 1000)).toThrow(RangeError);
    expect(() => timetable(10, 0)).toThrow(RangeError);
  });
});
