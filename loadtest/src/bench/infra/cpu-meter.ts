/**
 * CPU used by each process taking part in a measurement, as cores (CPU seconds per
 * second of wall time): the bench's own process (process.cpuUsage), child processes by
 * pid (/proc/<pid>/stat, Linux), redis-servers by their own account (INFO cpu). On a
 * 2-core machine shared by clients, servers and brokers, this says who had the cores;
 * `machine` (all CPUs' busy time, /proc/stat) also counts whatever else ran meanwhile, and
 * `others` is that else: the machine's busy time less the bench's own processes (this
 * one and its descendants). A shared machine's other work shows there, next to the figures
 * it bent.
 */
import { spawnSync } from "node:child_process";
import { readdir, readFile } from "node:fs/promises";
import type { Redis } from "ioredis";

/** Reads a process's total CPU seconds so far. */
export type CpuProbe = () => Promise<number>;

/**
 * The parent pid, utime + stime, and those plus cutime + cstime (the CPU of its children that ended
 * and were waited for), in clock ticks, of the text of /proc/<pid>/stat.
 */
export function procStat(stat: string) {
  const afterName = stat.lastIndexOf(")") + 2; // the command name may hold spaces
  const f = stat.slice(afterName).split(" ").map(Number);
  return { ppid: f[1]!, ticks: f[11]! + f[12]!, withEnded: f[11]! + f[12]! + f[13]! + f[14]! }; // fields 4 and 14-17 of proc(5), counted after the name
}

export type ProcTicks = ReturnType<typeof procStat>;

/** Ticks of the processes in the trees under `roots` (the roots included), ended descendants included. */
export function treeTicks(procs: ReadonlyMap<number, ProcTicks>, roots: readonly number[]): number {
  const children = new Map<number, number[]>();
  for (const [pid, p] of procs) children.set(p.ppid, [...(children.get(p.ppid) ?? []), pid]);
  let ticks = 0;
  const seen = new Set<number>();
  const stack = roots.filter((r) => procs.has(r));
  while (stack.length) {
    const pid = stack.pop()!;
    if (seen.has(pid)) continue;
    seen.add(pid);
    ticks += procs.get(pid)!.withEnded;
    stack.push(...(children.get(pid) ?? []));
  }
  return ticks;
}

async function allProcesses(): Promise<Map<number, ProcTicks>> {
  const pids = (await readdir("/proc")).filter((n) => /^\d+$/.test(n)).map(Number);
  const procs = new Map<number, ProcTicks>();
  await Promise.all(
    pids.map(async (pid) => {
      try {
        procs.set(pid, procStat(await readFile(`/proc/${pid}/stat`, "utf8")));
      } catch {
        // it exited meanwhile
      }
    }),
  );
  return procs;
}

/** Everything but the bench's own processes: the machine's busy time less this process's tree. */
export const othersCpu: CpuProbe = async () => {
  const [machine, procs] = await Promise.all([machineCpu(), allProcesses()]);
  return machine - treeTicks(procs, [process.pid]) / clockTicks();
};

/** Busy time (clock ticks) of all CPUs from the first line of /proc/stat: everything but idle and iowait. */
export function procStatBusyTicks(stat: string): number {
  const [user, nice, system, , , irq, softirq, steal] = stat.split("\n")[0]!.trim().split(/\s+/).slice(1).map(Number);
  return user! + nice! + system! + irq! + softirq! + (steal ?? 0);
}

/** used_cpu_sys + used_cpu_user of the text of INFO cpu. */
export function redisCpuSeconds(info: string): number {
  const field = (name: string) => Number(new RegExp(`^${name}:([\\d.]+)`, "m").exec(info)?.[1] ?? NaN);
  return field("used_cpu_sys") + field("used_cpu_user");
}

/** Calls and microseconds Redis spent in `commands` (lower-case names), summed, from the text of INFO commandstats. */
export function redisCommandStats(info: string, commands: readonly string[]): { calls: number; usec: number } {
  let calls = 0;
  let usec = 0;
  for (const c of commands) {
    const m = new RegExp(`^cmdstat_${c}:calls=(\\d+),usec=(\\d+)`, "m").exec(info);
    if (!m) continue;
    calls += Number(m[1]);
    usec += Number(m[2]);
  }
  return { calls, usec };
}

let ticksPerSecond: number | undefined;
/** Clock ticks per second: getconf CLK_TCK, asked once, else 100 (Linux's). */
function clockTicks(): number {
  ticksPerSecond ??= Number(spawnSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).stdout?.trim()) || 100;
  return ticksPerSecond;
}

export const selfCpu: CpuProbe = async () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
};

/** The whole machine's busy CPU seconds: every process, the bench's and anyone else's. */
export const machineCpu: CpuProbe = async () => procStatBusyTicks(await readFile("/proc/stat", "utf8")) / clockTicks();

/** The CPU seconds of the process `pid` and its descendants (a router's supervising process and its routers), ended ones included. */
export function treeCpu(pid: number): CpuProbe {
  return async () => treeTicks(await allProcesses(), [pid]) / clockTicks();
}

export function pidCpu(pid: number): CpuProbe {
  return async () => procStat(await readFile(`/proc/${pid}/stat`, "utf8")).ticks / clockTicks();
}

export function redisCpu(redis: Redis): CpuProbe {
  return async () => redisCpuSeconds(await redis.info("cpu"));
}

/** One probe over several: the sum of their readings (CPU seconds; script calls, infra/h2load-rounds.ts). */
export function sumProbes(probes: readonly CpuProbe[]): CpuProbe {
  return async () => (await Promise.all(probes.map((p) => p()))).reduce((a, b) => a + b, 0);
}

/**
 * Waits until every one of `probes` uses less than `cores` over `intervalMs` (a process not
 * measured, NaN, counts as at rest), at most `maxMs`: the seconds waited, to 0.1 s.
 */
export async function untilAtRest(probes: readonly CpuProbe[], cores: number, intervalMs: number, maxMs: number): Promise<number> {
  const t0 = performance.now();
  const read = () => Promise.all(probes.map((p) => p().catch(() => NaN)));
  while (performance.now() - t0 < maxMs) {
    const a = await read();
    await new Promise((r) => setTimeout(r, intervalMs));
    const b = await read();
    if (b.every((x, i) => !((x - a[i]!) / (intervalMs / 1000) >= cores))) break;
  }
  return Math.round((performance.now() - t0) / 100) / 10;
}

/**
 * Cores used by each probed process between `start` and the returned stop. Each probe's reading
 * keeps the time it came back, and its cores are over its own interval: a slow probe (`others`
 * scans all of /proc, seconds on a loaded machine) does not stretch or shrink another's.
 */
export async function startCpuMeter(probes: Readonly<Record<string, CpuProbe>>): Promise<() => Promise<Record<string, number>>> {
  const names = Object.keys(probes);
  const read = () => Promise.all(names.map(async (n) => ({ cpuS: await probes[n]!().catch(() => NaN), atMs: performance.now() })));
  const before = await read();
  return async () => {
    const after = await read();
    const cores = (a: { cpuS: number; atMs: number }, b: typeof a) => (b.cpuS - a.cpuS) / ((b.atMs - a.atMs) / 1000);
    return Object.fromEntries(names.map((n, i) => [n, Math.round(cores(before[i]!, after[i]!) * 100) / 100]));
  };
}
