import { describe, expect, it } from "vitest";
import { procStatBusyTicks, procStatTicks, redisCpuSeconds } from "./cpu-meter.js";

describe("bench > cpu meter", () => {
  it("reads utime + stime from /proc/<pid>/stat, even with spaces in the name", () => {
    const stat = "4242 (node (tsx) x) S 1 4242 4242 0 -1 4194304 100 0 0 0 250 37 0 0 20 0 11 0 1000 2000 300";
    expect(procStatTicks(stat)).toBe(287);
  });

  it("counts the machine's busy ticks without idle and iowait", () => {
    expect(procStatBusyTicks("cpu  100 5 50 9000 300 2 3 4 0 0\ncpu0 1 2 3 4 5 6 7 8 0 0\n")).toBe(164);
  });

  it("sums Redis's own system and user CPU", () => {
    expect(redisCpuSeconds("# CPU\r\nused_cpu_sys:1.500000\r\nused_cpu_user:2.250000\r\nused_cpu_sys_children:9\r\n")).toBe(3.75);
  });
});
