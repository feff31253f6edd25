// A game server's write loop for fault tests: batches of +1 increments with unique event ids, retried
// with the same ids on UNAVAILABLE or DEADLINE_EXCEEDED until acknowledged, as the API asks. Counts
// what happened; the oracle takes a batch only once it is acknowledged.
import { status } from "@grpc/grpc-js";
import { Operation, type PartitionOffset } from "@ladder/proto/leaderboard/v1/common_pb";
import type { TestCluster } from "./cluster-harness.js";

export interface WriteLoadResult {
  /** Updates acknowledged by ingest. */
  acknowledged: number;
  /** Batches answered UNAVAILABLE / DEADLINE_EXCEEDED, then retried with the same event ids. */
  retries: number;
  /** Acknowledged increments per player: the truth to compare with. */
  expected: Map<string, number>;
  offsets: PartitionOffset[];
}

export interface WriteLoadOptions {
  board: string;
  /** Distinguishes the event ids of several loads on one board. */
  run?: string;
  batches: number;
  batchSize: number;
  players: number;
  /** Called after each acknowledged batch, with its index: where a test injects its fault. */
  afterBatch?: (index: number) => Promise<void> | void;
  /** How long to wait for one attempt before calling it failed (ms). */
  attemptTimeoutMs?: number;
}

export async function writeLoad(cluster: TestCluster, o: WriteLoadOptions): Promise<WriteLoadResult> {
  const result: WriteLoadResult = { acknowledged: 0, retries: 0, expected: new Map(), offsets: [] };
  for (let b = 0; b < o.batches; b++) {
    const updates = Array.from({ length: o.batchSize }, (_, i) => ({
      board: o.board, playerId: `f-${(b * 7919 + i * 104729) % o.players}`, op: Operation.INCREMENT, value: 1n, eventId: `${o.board}-${o.run ?? ""}-${b}-${i}`,
    }));
    for (;;) {
      try {
        const res = await cluster.ingest.submitScores({ updates }, { timeoutMs: o.attemptTimeoutMs ?? 5000 });
        result.acknowledged += updates.length;
        result.offsets.push(...res.offsets);
        for (const u of updates) result.expected.set(u.playerId, (result.expected.get(u.playerId) ?? 0) + 1);
        break;
      } catch (err) {
        const code = (err as { code?: number }).code;
        if (code !== status.UNAVAILABLE && code !== status.DEADLINE_EXCEEDED) throw err;
        result.retries++;
        await new Promise((r) => setTimeout(r, 200));
      }
    }
    await o.afterBatch?.(b);
  }
  return result;
}

/** Compares a board (of at most 10,000 players) with the expected increments: events lost and applied twice. */
export async function auditBoard(cluster: TestCluster, board: string, expected: Map<string, number>, view = "") {
  const actual = new Map<string, number>();
  for (let offset = 0; offset < 10_000; offset += 1000) {
    const page = await cluster.router.getTop({ board, offset: BigInt(offset), limit: 1000, view });
    for (const e of page.entries) actual.set(e.playerId, Number(e.score));
    if (page.entries.length < 1000) break;
  }
  let lost = 0;
  let doubled = 0;
  for (const player of new Set([...expected.keys(), ...actual.keys()])) {
    const diff = (actual.get(player) ?? 0) - (expected.get(player) ?? 0);
    if (diff > 0) doubled += diff;
    else lost -= diff;
  }
  return { players: actual.size, events: [...expected.values()].reduce((a, b) => a + b, 0), lost, doubled };
}
