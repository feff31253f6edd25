/**
 * CPU used by each process taking part in a measurement, as cores (CPU seconds per
 * second of wall time): the bench's own process (process.cpuUsage), child processes by
 * pid (/proc/<pid>/stat, Linux), redis-servers by their own account (INFO cpu). On a
 * 2-core machine shared by clients, servers and brokers, this says who had the cores;
 * `machine` (all CPUs' busy time, /proc/stat) also counts whatever else ran meanwhile.
 */
import { execFileSync } from "node:child_process";
import { readFile } from "node:fs/promises";
import type { Redis } from "ioredis";

/** Reads a process's total CPU seconds so far. */
export type CpuProbe = () => Promise<number>;

/** utime + stime (clock ticks) of the text of /proc/<pid>/stat. */
export function procStatTicks(stat: string): number {
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" "); // the command name may hold spaces
  return Number(fields[11]) + Number(fields[12]); // fields 14 and 15 of proc(5), counted after the name
}

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

let ticksPerSecond: number | undefined;
function clockTicks(): number {
  if (ticksPerSecond === undefined) {
    try {
      ticksPerSecond = Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100;
    } catch {
      ticksPerSecond = 100;
    }
  }
  return ticksPerSecond;
}

export const selfCpu: CpuProbe = async () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
};

/** The whole machine's busy CPU seconds: every process, the bench's and anyone else's. */
export const machineCpu: CpuProbe = async () => procStatBusyTicks(await readFile("/proc/stat", "utf8")) / clockTicks();

export function pidCpu(pid: number): CpuProbe {
  return async () => procStatTicks(await readFile(`/proc/${pid}/stat`, "utf8")) / clockTicks();
}

export function redisCpu(redis: Redis): CpuProbe {
  return async () => redisCpuSeconds(await redis.info("cpu"));
}

/** One probe over several processes: the sum of their CPU seconds. */
export function sumProbes(probes: readonly CpuProbe[]): CpuProbe {
  return async () => (await Promise.all(probes.map((p) => p()))).reduce((a, b) => a + b, 0);
}

/** Cores used by each probed process between `start` and the returned stop. */
export async function startCpuMeter(probes: Readonly<Record<string, CpuProbe>>): Promise<() => Promise<Record<string, number>>> {
  const names = Object.keys(probes);
  const read = () => Promise.all(names.map((n) => probes[n]!().catch(() => NaN)));
  const before = await read();
  const t0 = performance.now();
  return async () => {
    const after = await read();
    const wall = (performance.now() - t0) / 1000;
    return Object.fromEntries(names.map((n, i) => [n, Math.round(((after[i]! - before[i]!) / wall) * 100) / 100]));
  };
}
