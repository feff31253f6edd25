// The partition harness's traffic and its checks: writers (game servers) and a reader (players) that
// run for the whole test while faults come and go, every outcome kept with its start and end time.
//
// Writers submit batches of +1 increments with unique event ids, each batch retried with the same ids
// on UNAVAILABLE or DEADLINE_EXCEEDED, or after the pause a RESOURCE_EXHAUSTED with retry-after-ms asks
// (a shard behind: ingest's lag admission), until acknowledged, one batch at a time (so the acknowledgement
// order is the order of the log per player, and the oracle applies batches in it). Each writer has its
// own players. `sent` counts every update ever sent (acknowledged, refused, or in flight): no score may
// exceed it.
//
// The reader asks GetTop, GetRank and GetAround in turn. While writes apply, shards are read each at
// its own point of the log, so an answer is checked for what must hold of any such read: a page's
// ranks consecutive from where it starts, within 1..total, no player twice, in the board's order; no
// score above the updates sent to that player; a player's score never lower than one read earlier,
// and a player once seen never missing. Those two hold as far as the cluster promises them: where a
// shard's reads are spread over a primary and its replicas, an answer may miss the writes of the
// last LADDER_REPLICA_MAX_LAG_MS (docs/operations.md, "Replicas and failover"), so a later answer may
// show less than an earlier one only when it began within that bound of the earlier one's end
// (`replicaLagMs` per player; 0, strictly monotonic, where one Redis answers). A
// refusal must carry a status and a reason; it is kept for the fault windows (faults.ts). The exact
// check against the oracle is made on the quiet board at the end (auditNetBoard).
import { status } from "@grpc/grpc-js";
import type { ClientOf } from "@ladder/client/grpc-stub";
import { BoardSpecs, DEFAULT_BOARD, makeBoardSpec } from "@ladder/model/board-spec";
import { Operation, type Entry, type PartitionOffset } from "@ladder/proto/leaderboard/v1/common_pb";
import type { IngestService } from "@ladder/proto/leaderboard/v1/ingest_pb";
import type { LeaderboardService } from "@ladder/proto/leaderboard/v1/leaderboard_pb";
import { Oracle, pageProblems, plainEntry } from "../oracle.js";
import { retryAfterMs } from "@ladder/client";
import { ReadHistory } from "./read-history.js";

export const BOARD = "pt";
const boards = new BoardSpecs([makeBoardSpec(DEFAULT_BOARD).spec!]);
const ATTEMPT_TIMEOUT_MS = 3000;
const RETRY_PAUSE_MS = 100;
/** Between a writer's batches: a few thousand updates a second in all, leaving this 2-core machine some room. */
const WRITE_PAUSE_MS = 5;

export interface Attempt {
  kind: "write" | "top" | "rank" | "around";
  startMs: number;
  endMs: number;
  /** Absent when answered. */
  refused?: { code: number; details: string };
  /**
   * How stale an answer was: the most time, over its entries, by which the read's start followed the
   * acknowledgement of an update the entry does not show yet (0: it showed every update acknowledged
   * before the read began).
   */
  staleMs?: number;
}

export interface Traffic {
  readonly attempts: Attempt[];
  readonly oracle: Oracle;
  readonly offsets: PartitionOffset[];
  /** Problems found in answers (each a wrong answer). */
  readonly wrong: string[];
  /** Failures that are neither an answer nor a refusal with a retriable status. */
  readonly unexpected: string[];
  acknowledged(): number;
  /** Stops the writers and the reader; resolves when their last calls have ended. */
  stop(): Promise<void>;
}

const RETRIABLE = new Set([status.UNAVAILABLE, status.DEADLINE_EXCEEDED]);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function startTraffic(
  ingest: ClientOf<typeof IngestService>,
  router: ClientOf<typeof LeaderboardService>,
  o: {
    writers: number;
    playersPerWriter: number;
    batchSize: number;
    /** How far behind an answer read earlier a player's later answer may be (ms; see above). 0 when absent. */
    replicaLagMs?: (playerId: string) => number;
  },
): Traffic {
  const attempts: Attempt[] = [];
  const oracle = new Oracle((b) => boards.forBoard(b));
  const offsets: PartitionOffset[] = [];
  const wrong: string[] = [];
  const unexpected: string[] = [];
  const sent = new Map<string, number>();
  const acked = new Map<string, number[]>(); // player -> when each of its updates was acknowledged, in order
  let acknowledged = 0;
  let running = true;

  async function writer(w: number): Promise<void> {
    for (let b = 0; running; b++) {
      const timestampMs = Date.now();
      const updates = Array.from({ length: o.batchSize }, (_, i) => ({
        board: BOARD,
        playerId: `w${w}-${(b * 7919 + i * 104729) % o.playersPerWriter}`,
        op: Operation.INCREMENT,
        value: 1n,
        timestampMs: BigInt(timestampMs),
        eventId: `pt-${w}-${b}-${i}`,
      }));
      for (const u of updates) sent.set(u.playerId, (sent.get(u.playerId) ?? 0) + 1);
      for (;;) {
        const startMs = Date.now();
        try {
          const res = await ingest.submitScores({ updates }, { timeoutMs: ATTEMPT_TIMEOUT_MS });
          attempts.push({ kind: "write", startMs, endMs: Date.now() });
          offsets.push(...res.offsets);
          const ackedAt = Date.now();
          for (const u of updates) {
            oracle.apply({ board: BOARD, playerId: u.playerId, op: u.op, value: 1, timestampMs });
            const times = acked.get(u.playerId) ?? [];
            times.push(ackedAt);
            acked.set(u.playerId, times);
          }
          acknowledged += updates.length;
          await sleep(WRITE_PAUSE_MS);
          break;
        } catch (err) {
          const e = err as { code?: number; details?: string };
          attempts.push({ kind: "write", startMs, endMs: Date.now(), refused: { code: e.code ?? -1, details: e.details ?? String(err) } });
          // RESOURCE_EXHAUSTED with retry-after-ms: a shard the batch writes to is behind (ingest's lag
          // admission), nothing written; a retriable refusal like UNAVAILABLE, after the pause it asks
          const after = retryAfterMs(err);
          if (!RETRIABLE.has(e.code as status) && after === undefined) unexpected.push(`write: ${e.code} ${e.details ?? String(err)}`);
          // a batch is retried until acknowledged, even after stop(): every batch sent ends acknowledged
          await sleep(Math.max(RETRY_PAUSE_MS, after ?? 0));
        }
      }
    }
  }

  const history = new ReadHistory(o.replicaLagMs);
  let staleMs = 0; // of the answer being checked
  function checkEntry(e: ReturnType<typeof plainEntry>, total: number, what: string, readStartMs: number): void {
    const missed = acked.get(e.playerId)?.[e.score]; // its first acknowledged update not shown
    if (missed !== undefined && missed < readStartMs) staleMs = Math.max(staleMs, readStartMs - missed);
    if (e.score > (sent.get(e.playerId) ?? 0)) wrong.push(`${what}: ${e.playerId} at ${e.score} > ${sent.get(e.playerId) ?? 0} sent`);
    const earlier = history.mustShow(e.playerId, readStartMs);
    if (earlier && e.score < earlier.score)
      wrong.push(`${what}: ${e.playerId} at ${e.score}, read from ${readStartMs}, after ${earlier.score} was read by ${earlier.endMs}`);
    if (e.rank < 1 || e.rank > total) wrong.push(`${what}: ${e.playerId} rank ${e.rank} outside 1..${total}`);
    history.note(e.playerId, e.score, Date.now());
  }
  function checkPage(entries: Entry[], total: bigint, what: string, readStartMs: number, firstRank?: number): void {
    const plain = entries.map(plainEntry);
    for (const p of pageProblems(plain, Number(total), firstRank)) wrong.push(`${what}: ${p}`);
    if (Number(total) > sent.size) wrong.push(`${what}: total ${total} > ${sent.size} players sent`);
    for (const e of plain) checkEntry(e, Number(total), what, readStartMs);
  }

  async function reader(): Promise<void> {
    const players = () => [...acked.keys()];
    for (let n = 0; running; n++) {
      const kind = (["top", "rank", "around"] as const)[n % 3]!;
      const known = players();
      if (known.length === 0) {
        await sleep(50);
        continue;
      }
      const player = known[(n * 2654435761) % known.length]!;
      const offset = (n * 7) % Math.max(1, known.length);
      const startMs = Date.now();
      const what = `${kind}#${n}`;
      staleMs = 0;
      try {
        const opts = { timeoutMs: ATTEMPT_TIMEOUT_MS };
        if (kind === "top") {
          const r = await router.getTop({ board: BOARD, offset: BigInt(offset), limit: 10 }, opts);
          checkPage(r.entries, r.total, `${what} offset ${offset}`, startMs, r.entries.length ? offset + 1 : undefined);
        } else if (kind === "rank") {
          const r = await router.getRank({ board: BOARD, playerId: player }, opts);
          if (!r.entry || r.entry.playerId !== player) wrong.push(`${what}: asked ${player}, answered ${r.entry?.playerId}`);
          else checkEntry(plainEntry(r.entry), Number(r.total), what, startMs);
        } else {
          const r = await router.getAround({ board: BOARD, playerId: player, radius: 3 }, opts);
          if (!r.entries.some((e) => e.playerId === player)) wrong.push(`${what}: ${player} not in its own window`);
          checkPage(r.entries, r.total, what, startMs);
        }
        attempts.push({ kind, startMs, endMs: Date.now(), staleMs });
      } catch (err) {
        const e = err as { code?: number; details?: string };
        const endMs = Date.now();
        if (e.code === status.NOT_FOUND) {
          // the player's shard is behind its acknowledgement: an answer, unless it was read before
          const earlier = history.mustShow(player, startMs);
          if (earlier)
            wrong.push(`${what}: ${player} NOT_FOUND, read from ${startMs}, after it was read at ${earlier.score} by ${earlier.endMs}`);
          const missed = acked.get(player)?.[0];
          attempts.push({ kind, startMs, endMs, staleMs: missed !== undefined && missed < startMs ? startMs - missed : 0 });
          continue;
        }
        attempts.push({ kind, startMs, endMs, refused: { code: e.code ?? -1, details: e.details ?? String(err) } });
        if (!RETRIABLE.has(e.code as status) || !e.details) unexpected.push(`${what}: ${e.code} ${e.details ?? String(err)}`);
        await sleep(RETRY_PAUSE_MS);
      }
    }
  }

  const loops = [...Array.from({ length: o.writers }, (_, w) => writer(w)), reader()];
  return {
    attempts,
    oracle,
    offsets,
    wrong,
    unexpected,
    acknowledged: () => acknowledged,
    async stop() {
      running = false;
      await Promise.all(loops);
    },
  };
}

export interface NetAudit {
  players: number;
  events: number;
  lost: number;
  doubled: number;
  misranked: number;
}

/** The quiet board read whole through the router against the oracle: events lost, doubled, entries misranked. */
export async function auditNetBoard(router: ClientOf<typeof LeaderboardService>, oracle: Oracle): Promise<NetAudit> {
  const expected = oracle.byPlayer(BOARD);
  const actual = new Map<string, number>();
  let misranked = 0;
  for (let offset = 0; ; offset += 1000) {
    const page = await router.getTop({ board: BOARD, offset: BigInt(offset), limit: 1000 });
    page.entries.forEach((e, i) => {
      actual.set(e.playerId, Number(e.score));
      const want = expected.get(e.playerId);
      if (Number(e.rank) !== offset + i + 1 || Number(e.rank) !== want?.rank || Number(e.reachedAtMs) !== want.reachedAtMs) misranked++;
    });
    if (page.entries.length < 1000) break;
  }
  let lost = 0;
  let doubled = 0;
  for (const player of new Set([...expected.keys(), ...actual.keys()])) {
    const diff = (actual.get(player) ?? 0) - (expected.get(player)?.score ?? 0);
    if (diff > 0) doubled += diff;
    else lost -= diff;
  }
  const events = [...expected.values()].reduce((a, e) => a + e.score, 0);
  return { players: actual.size, events, lost, doubled, misranked };
}
