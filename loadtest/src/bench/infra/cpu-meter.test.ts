import { describe, expect, it } from "vitest";
import { procStat, procStatBusyTicks, redisCommandStats, redisCpuSeconds, startCpuMeter, treeTicks } from "./cpu-meter.js";

describe("bench > cpu meter", () => {
  it("reads utime + stime from /proc/<pid>/stat, even with spaces in the name", () => {
    const stat = "4242 (node (tsx) x) S 1 4242 4242 0 -1 4194304 100 0 0 0 250 37 0 0 20 0 11 0 1000 2000 300";
    expect(procStat(stat).ticks).toBe(287);
  });

  it("counts the machine's busy ticks without idle and iowait", () => {
    expect(procStatBusyTicks("cpu  100 5 50 9000 300 2 3 4 0 0\ncpu0 1 2 3 4 5 6 7 8 0 0\n")).toBe(164);
  });

  it("sums Redis's own system and user CPU", () => {
    expect(redisCpuSeconds("# CPU\r\nused_cpu_sys:1.500000\r\nused_cpu_user:2.250000\r\nused_cpu_sys_children:9\r\n")).toBe(3.75);
  });

  it("sums the calls and time of the commands asked for from INFO commandstats", () => {
    const info =
      "# Commandstats\r\ncmdstat_evalsha:calls=40,usec=8000,usec_per_call=200.00,rejected_calls=0,failed_calls=0\r\ncmdstat_eval:calls=2,usec=500,usec_per_call=250.00\r\ncmdstat_zadd:calls=9,usec=90\r\n";
    expect(redisCommandStats(info, ["evalsha", "eval"])).toEqual({ calls: 42, usec: 8500 });
    expect(redisCommandStats(info, ["zscore"])).toEqual({ calls: 0, usec: 0 });
  });

  it("reads the parent and the CPU of ended children too", () => {
    const stat = "4242 (postgres) S 1 4242 4242 0 -1 4194304 100 0 0 0 250 37 400 13 20 0 11 0 1000 2000 300";
    expect(procStat(stat)).toEqual({ ppid: 1, ticks: 287, withEnded: 700 });
  });

  it("sums a tree of processes, ended children included, and nothing outside it", () => {
    const procs = new Map([
      [1, { ppid: 0, ticks: 5, withEnded: 5 }],
      [10, { ppid: 1, ticks: 100, withEnded: 150 }], // the bench
      [11, { ppid: 10, ticks: 20, withEnded: 20 }],
      [12, { ppid: 11, ticks: 3, withEnded: 3 }],
      [20, { ppid: 1, ticks: 40, withEnded: 40 }], // a postmaster the bench started, daemonized
      [21, { ppid: 20, ticks: 7, withEnded: 7 }],
      [30, { ppid: 1, ticks: 999, withEnded: 999 }], // someone else's
    ]);
    expect(treeTicks(procs, [10])).toBe(173);
    expect(treeTicks(procs, [10, 20, 404])).toBe(220);
  });

  it("reads each process's cores over its own interval, however long another probe takes", async () => {
    const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
    let slowFirst = true;
    const probes = {
      oneCore: async () => performance.now() / 1000, // a process that burns exactly one core
      slow: async () => {
        if (slowFirst) await sleep(300); // a scan of /proc that is slow at the start only
        slowFirst = false;
        return 0;
      },
    };
    const stop = await startCpuMeter(probes);
    await sleep(100);
    const cores = await stop();
    expect(cores.oneCore).toBeGreaterThan(0.9);
    expect(cores.oneCore).toBeLessThan(1.1);
    expect(cores.slow).toBe(0);
  });
});
