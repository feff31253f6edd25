// The partition harness's faults, and the figures of each from the traffic's attempts (workload.ts).
//
// A fault runs as: a calm lead-in (no refusal may happen in it: the cluster is whole), the fault for
// its duration, the heal, then a wait until a read and a write that started after the heal have both
// been answered (the recovery; at most RECOVERY_LIMIT_MS). Figures of a fault, from the attempts
// that ended between its start and its recovery:
// - unavailableMs, reads and writes apart: from the start of the first refused attempt to the end of the
//   first answered one after the last refusal (0 when none was refused);
// - recoveryMs: from the heal to the end of the first answered attempt started after it;
// - strayRefusals: refusals in the calm lead-in, i.e. while every part was reachable.
import type { Attempt, Traffic } from "./workload.js";
import type { NetCluster } from "./cluster.js";

export interface Fault {
  name: string;
  /** What it cuts or slows, for the report. */
  kind: "partition" | "unplug" | "delay" | "stall";
  target: string;
  durationMs: number;
  inject(c: NetCluster): Promise<void> | void;
  heal(c: NetCluster): Promise<void> | void;
}

export interface FaultFigures {
  fault: string;
  kind: Fault["kind"];
  target: string;
  durationMs: number;
  reads: { answered: number; refused: number; unavailableMs: number; recoveryMs: number };
  writes: { answered: number; refused: number; unavailableMs: number; recoveryMs: number };
  strayRefusals: number;
  /** Distinct refusal reasons seen (status: details), at most 4. */
  reasons: string[];
}

const CALM_MS = 1500;
export const RECOVERY_LIMIT_MS = 60_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function partition(link: string, durationMs: number): Fault {
  return {
    name: `partition ${link}`,
    kind: "partition",
    target: link,
    durationMs,
    inject: (c) => c.link(link).partition(true),
    heal: (c) => c.link(link).partition(false),
  };
}

/** A host's cable pulled: its veth's switch end down (ip link set … down), every link to it cut at once. */
export function unplug(host: string, durationMs: number): Fault {
  return {
    name: `unplug ${host} (ip link down)`,
    kind: "unplug",
    target: host,
    durationMs,
    inject: (c) => c.topology.unplug(host),
    heal: (c) => c.topology.plug(host),
  };
}

export function delay(link: string, ms: number, durationMs: number): Fault {
  return {
    name: `delay ${ms} ms ${link}`,
    kind: "delay",
    target: link,
    durationMs,
    inject: (c) => c.link(link).delay(ms),
    heal: (c) => c.link(link).delay(0),
  };
}

/** A stall: the link passes nothing for `durationMs`, then everything buffered at once. */
export function stall(link: string, durationMs: number): Fault {
  return {
    name: `stall ${link}`,
    kind: "stall",
    target: link,
    durationMs,
    inject: (c) => c.link(link).partition(true),
    heal: (c) => c.link(link).partition(false),
  };
}

export async function runFault(c: NetCluster, traffic: Traffic, f: Fault): Promise<FaultFigures> {
  const calmFrom = Date.now();
  await sleep(CALM_MS);
  const faultFrom = Date.now();
  await f.inject(c);
  await sleep(f.durationMs);
  await f.heal(c);
  const healAt = Date.now();
  const answeredAfter = (kind: "read" | "write") => traffic.attempts.find((a) => !a.refused && a.startMs >= healAt && isKind(a, kind));
  while (!(answeredAfter("read") && answeredAfter("write"))) {
    if (Date.now() - healAt > RECOVERY_LIMIT_MS) throw new Error(`${f.name}: not recovered ${RECOVERY_LIMIT_MS} ms after the heal`);
    await sleep(20);
  }
  const recoveredAt = Math.max(answeredAfter("read")!.endMs, answeredAfter("write")!.endMs);
  const within = traffic.attempts.filter((a) => a.endMs >= faultFrom && a.startMs <= recoveredAt);
  const calm = traffic.attempts.filter((a) => a.startMs >= calmFrom && a.endMs < faultFrom);
  const side = (kind: "read" | "write") => {
    const mine = within.filter((a) => isKind(a, kind));
    return {
      answered: mine.filter((a) => !a.refused).length,
      refused: mine.filter((a) => a.refused).length,
      unavailableMs: unavailableMs(mine),
      recoveryMs: answeredAfter(kind)!.endMs - healAt,
    };
  };
  const reasons = [...new Set(within.filter((a) => a.refused).map((a) => `${a.refused!.code}: ${a.refused!.details}`))];
  return {
    fault: f.name,
    kind: f.kind,
    target: f.target,
    durationMs: f.durationMs,
    reads: side("read"),
    writes: side("write"),
    strayRefusals: calm.filter((a) => a.refused).length,
    reasons: reasons.slice(0, 4),
  };
}

const isKind = (a: Attempt, kind: "read" | "write") => (kind === "write" ? a.kind === "write" : a.kind !== "write");

/** From the first refused attempt's start to the end of the first answer after the last refusal. */
function unavailableMs(attempts: Attempt[]): number {
  const sorted = [...attempts].sort((a, b) => a.startMs - b.startMs);
  const refused = sorted.filter((a) => a.refused);
  if (refused.length === 0) return 0;
  const lastRefusal = refused.at(-1)!;
  const after = sorted.find((a) => !a.refused && a.startMs >= lastRefusal.endMs);
  return (after?.endMs ?? lastRefusal.endMs) - refused[0]!.startMs;
}
