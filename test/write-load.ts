// A game server's write loop for fault tests: batches of +1 increments with unique event ids, retried
// with the same ids on UNAVAILABLE or DEADLINE_EXCEEDED, or after retry-after-ms on RESOURCE_EXHAUSTED,
// until acknowledged, as the API asks. Counts
// what happened; the oracle takes a batch only once it is acknowledged.
import { status } from "@grpc/grpc-js";
import { BoardSpecs, DEFAULT_BOARD, makeBoardSpec } from "@ladder/model/board-spec";
import { Operation, type PartitionOffset } from "@ladder/proto/leaderboard/v1/common_pb";
import type { TestCluster } from "./cluster-harness.js";
import { Oracle, type OracleUpdate } from "./oracle.js";
import { retryAfterMs } from "@ladder/client";

/** The boards of the test cluster: the default board only (no LADDER_BOARDS). */
const boards = new BoardSpecs([makeBoardSpec(DEFAULT_BOARD).spec!]);
/** Time between two batches' timestamps: four batches per one-minute unit, so ranks depend on time too. */
const BATCH_TIME_STEP_MS = 15_000;

export interface WriteLoadResult {
  /** Updates acknowledged by ingest. */
  acknowledged: number;
  /** Batches answered UNAVAILABLE / DEADLINE_EXCEEDED, then retried with the same event ids. */
  retries: number;
  /** Acknowledged increments per player: the truth to compare with. */
  expected: Map<string, number>;
  /** The acknowledged updates, in acknowledgement order. */
  updates: OracleUpdate[];
  /** The board as the acknowledged updates make it, ranks included. */
  oracle: Oracle;
  offsets: PartitionOffset[];
  /** The last acknowledged batch's consistency token ("" before any). */
  lastToken: string;
}

export interface WriteLoadOptions {
  board: string;
  /** Distinguishes the event ids of several loads on one board. */
  run?: string;
  batches: number;
  batchSize: number;
  players: number;
  /** Called after each acknowledged batch, with its index and the result so far: where a test injects its fault. */
  afterBatch?: (index: number, sofar: WriteLoadResult) => Promise<void> | void;
  /** How long to wait for one attempt before calling it failed (ms). */
  attemptTimeoutMs?: number;
}

export async function writeLoad(cluster: Pick<TestCluster, "ingest">, o: WriteLoadOptions): Promise<WriteLoadResult> {
  const result: WriteLoadResult = {
    acknowledged: 0,
    retries: 0,
    expected: new Map(),
    updates: [],
    oracle: oracleOf(),
    offsets: [],
    lastToken: "",
  };
  // explicit times, in the past, one step per batch: the oracle knows each update's time, and a retry
  // resends the same times with the same event ids
  const firstBatchMs = Date.now() - o.batches * BATCH_TIME_STEP_MS;
  for (let b = 0; b < o.batches; b++) {
    const timestampMs = firstBatchMs + b * BATCH_TIME_STEP_MS;
    const updates = Array.from({ length: o.batchSize }, (_, i) => ({
      board: o.board,
      playerId: `f-${(b * 7919 + i * 104729) % o.players}`,
      op: Operation.INCREMENT,
      value: 1n,
      timestampMs: BigInt(timestampMs),
      eventId: `${o.board}-${o.run ?? ""}-${b}-${i}`,
    }));
    for (;;) {
      try {
        const res = await cluster.ingest.submitScores({ updates }, { timeoutMs: o.attemptTimeoutMs ?? 5000 });
        result.acknowledged += updates.length;
        result.offsets.push(...res.offsets);
        result.lastToken = res.consistencyToken;
        for (const u of updates) {
          result.expected.set(u.playerId, (result.expected.get(u.playerId) ?? 0) + 1);
          const acked: OracleUpdate = { board: u.board, playerId: u.playerId, op: u.op, value: 1, timestampMs };
          result.updates.push(acked);
          result.oracle.apply(acked);
        }
        break;
      } catch (err) {
        const code = (err as { code?: number }).code;
        const after = retryAfterMs(err); // RESOURCE_EXHAUSTED with retry-after-ms: a shard behind, nothing written
        if (code !== status.UNAVAILABLE && code !== status.DEADLINE_EXCEEDED && after === undefined) throw err;
        result.retries++;
        await new Promise((r) => setTimeout(r, Math.max(200, after ?? 0)));
      }
    }
    await o.afterBatch?.(b, result);
  }
  return result;
}

/** An oracle of the given loads' acknowledged updates, applied load after load. */
export function oracleOf(...loads: WriteLoadResult[]): Oracle {
  const oracle = new Oracle((board) => boards.forBoard(board));
  for (const load of loads) for (const u of load.updates) oracle.apply(u);
  return oracle;
}

export interface Audit {
  players: number;
  events: number;
  lost: number;
  doubled: number;
}

/**
 * Compares a board (of at most 10,000 players, quiet: every acknowledged event applied) with the truth:
 * events lost and applied twice. Given the oracle, also `misranked`: entries whose rank is not the
 * oracle's rank of that player, or not their position in the pages. Given only the expected counts
 * (no times, so no order), it checks scores only.
 */
export async function auditBoard(
  cluster: Pick<TestCluster, "router">,
  board: string,
  truth: Oracle,
  view?: string,
): Promise<Audit & { misranked: number }>;
export async function auditBoard(
  cluster: Pick<TestCluster, "router">,
  board: string,
  truth: Map<string, number>,
  view?: string,
): Promise<Audit>;
export async function auditBoard(
  cluster: Pick<TestCluster, "router">,
  board: string,
  truth: Map<string, number> | Oracle,
  view = "",
): Promise<Audit> {
  const oracle = truth instanceof Oracle ? truth.byPlayer(board) : undefined;
  const expected = oracle ? new Map([...oracle].map(([p, e]) => [p, e.score])) : (truth as Map<string, number>);
  const actual = new Map<string, number>();
  let misranked = 0;
  for (let offset = 0; offset < 10_000; offset += 1000) {
    const page = await cluster.router.getTop({ board, offset: BigInt(offset), limit: 1000, view });
    page.entries.forEach((e, i) => {
      actual.set(e.playerId, Number(e.score));
      if (oracle && (Number(e.rank) !== offset + i + 1 || Number(e.rank) !== oracle.get(e.playerId)?.rank)) misranked++;
    });
    if (page.entries.length < 1000) break;
  }
  let lost = 0;
  let doubled = 0;
  for (const player of new Set([...expected.keys(), ...actual.keys()])) {
    const diff = (actual.get(player) ?? 0) - (expected.get(player) ?? 0);
    if (diff > 0) doubled += diff;
    else lost -= diff;
  }
  const figures = { players: actual.size, events: [...expected.values()].reduce((a, b) => a + b, 0), lost, doubled };
  return oracle ? Object.assign(figures, { misranked }) : figures;
}
