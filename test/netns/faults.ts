// The partition harness's faults, and the figures of each from the traffic's attempts (workload.ts).
//
// A fault runs as: a calm lead-in (no refusal may happen in it: the cluster is whole), the fault for
// its duration, the heal, then a wait until a read and a write that started after the heal have both
// been answered and the shards have caught up (the recovery; at most RECOVERY_LIMIT_MS). Figures of a
// fault, from the attempts that ended between its start and its recovery:
// - unavailableMs, reads and writes apart: from the start of the first refused attempt to the end of the
//   first answered one after the last refusal (0 when none was refused);
// - recoveryMs: from the heal to the end of the first answered attempt started after it;
// - caughtUpMs: from the heal until every shard has applied every write acknowledged before the heal
//   and has known itself to hold the log's end since the heal (its Redis read directly: the offsets and
//   the heartbeat's "current as of"): the answers are then as fresh as before the fault, and no shard
//   is refused as not current because its as-of still dates from before the heal;
// - maxStaleMs (reads): the stalest answer (workload.ts, Attempt.staleMs);
// - strayRefusals: refusals in the calm lead-in, i.e. while every part was reachable, and calmMaxStaleMs
//   the stalest answer there.
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
  /** What must hold once recovered, beyond the traffic's checks: the problems found, none if it holds. */
  check?(c: NetCluster): Promise<string[]>;
  /** What the check saw, for the report. */
  note?(): string;
}

export interface FaultFigures {
  fault: string;
  kind: Fault["kind"];
  target: string;
  durationMs: number;
  reads: { answered: number; refused: number; unavailableMs: number; recoveryMs: number; maxStaleMs: number };
  writes: { answered: number; refused: number; unavailableMs: number; recoveryMs: number };
  caughtUpMs: number;
  strayRefusals: number;
  /** The stray refusals: what (status: details) and when (ms after the calm lead-in began). */
  strays: string[];
  calmMaxStaleMs: number;
  /** Distinct refusal reasons seen (status: details), at most 4. */
  reasons: string[];
  /** From the fault's own check (e.g. which Redis Sentinel names primary after it). */
  problems: string[];
  /** What the fault's check saw, for the report. */
  note?: string;
}

const CALM_MS = 1000;
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

/**
 * A Sentinel host unplugged: one of three, a minority, so no failover may follow (one Sentinel alone
 * cannot be elected); after the heal every Sentinel names the primary they named before.
 */
export function sentinelMinority(host: string, durationMs: number): Fault {
  let before = "";
  return {
    ...unplug(host, durationMs),
    name: `Sentinel minority cut off: unplug ${host}`,
    async inject(c) {
      before = await agreedPrimary(c);
      await c.topology.unplug(host);
    },
    async check(c) {
      const named = await c.sentinelPrimaries();
      return named.every((n) => n === before) ? [] : [`after a minority cut the Sentinels name ${named.join(", ")}, not ${before}`];
    },
  };
}

/**
 * Shard 2's primary's host unplugged, whichever of its two servers is primary then: the Sentinel
 * majority promotes the other, and every Sentinel names it after the heal.
 */
export function primaryCutOff(durationMs: number): Fault {
  let before = "";
  let host = "";
  let replicationBefore = "";
  let note = "";
  const other = (c: NetCluster, a: string) => (a === c.sentinelServers.primary ? c.sentinelServers.replica : c.sentinelServers.primary);
  return {
    name: "Sentinel primary cut off: unplug shard 2's primary",
    kind: "unplug",
    target: "shard 2's primary",
    durationMs,
    async inject(c) {
      before = await agreedPrimary(c);
      replicationBefore = await c.replication();
      host = c.sentinelServers.hostOf(before);
      await c.topology.unplug(host);
    },
    heal: (c) => c.topology.plug(host),
    note: () => note,
    async check(c) {
      const named = await c.sentinelPrimaries();
      const want = other(c, before);
      note = `before the cut: ${replicationBefore}; after: ${await c.replication()}`;
      return named.every((n) => n === want) ? [] : [`after ${before}'s cut the Sentinels name ${named.join(", ")}, not ${want}`];
    },
  };
}

async function agreedPrimary(c: NetCluster): Promise<string> {
  const named = await c.sentinelPrimaries();
  if (new Set(named).size !== 1) throw new Error(`the Sentinels disagree before the fault: ${named.join(", ")}`);
  return named[0]!;
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
  const target = new Map<number, bigint>();
  for (const o of traffic.offsets) if (o.offset > (target.get(o.partition) ?? -1n)) target.set(o.partition, o.offset);
  const caughtUp = (async () => {
    for (;;) {
      const applied = await c.applied().catch(() => new Map<number, bigint>());
      const asOf = await c.currentAsOf().catch(() => -1);
      if ([...target].every(([p, off]) => (applied.get(p) ?? -1n) >= off) && asOf >= healAt) return Date.now() - healAt;
      if (Date.now() - healAt > RECOVERY_LIMIT_MS) throw new Error(`${f.name}: not caught up ${RECOVERY_LIMIT_MS} ms after the heal`);
      await sleep(50);
    }
  })();
  const answeredAfter = (kind: "read" | "write") => traffic.attempts.find((a) => !a.refused && a.startMs >= healAt && isKind(a, kind));
  while (!(answeredAfter("read") && answeredAfter("write"))) {
    if (Date.now() - healAt > RECOVERY_LIMIT_MS) throw new Error(`${f.name}: not recovered ${RECOVERY_LIMIT_MS} ms after the heal`);
    await sleep(20);
  }
  const caughtUpMs = await caughtUp;
  const recoveredAt = Math.max(answeredAfter("read")!.endMs, answeredAfter("write")!.endMs, healAt + caughtUpMs);
  const within = traffic.attempts.filter((a) => a.endMs >= faultFrom && a.startMs <= recoveredAt);
  const calm = traffic.attempts.filter((a) => a.startMs >= calmFrom && a.endMs < faultFrom);
  const side = (kind: "read" | "write") => {
    const mine = within.filter((a) => isKind(a, kind));
    return {
      answered: mine.filter((a) => !a.refused).length,
      refused: mine.filter((a) => a.refused).length,
      unavailableMs: unavailableMs(mine),
      recoveryMs: answeredAfter(kind)!.endMs - healAt,
      maxStaleMs: Math.max(0, ...mine.map((a) => a.staleMs ?? 0)),
    };
  };
  const problems = (await f.check?.(c)) ?? [];
  const reasons = [...new Set(within.filter((a) => a.refused).map((a) => `${a.refused!.code}: ${a.refused!.details}`))];
  return {
    fault: f.name,
    kind: f.kind,
    target: f.target,
    durationMs: f.durationMs,
    reads: side("read"),
    writes: (({ maxStaleMs: _, ...w }) => w)(side("write")),
    caughtUpMs,
    strayRefusals: calm.filter((a) => a.refused).length,
    strays: calm
      .filter((a) => a.refused)
      .slice(0, 4)
      .map((a) => `${a.kind} +${a.startMs - calmFrom}..${a.endMs - calmFrom} ms: ${a.refused!.code}: ${a.refused!.details}`),
    calmMaxStaleMs: Math.max(0, ...calm.map((a) => a.staleMs ?? 0)),
    reasons: reasons.slice(0, 4),
    problems,
    ...(f.note ? { note: f.note() } : {}),
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
