/**
 * What each operation of the mix sends. Players come from the Zipf chooser; write values
 * from the synthetic score distribution (an INCREMENT adds 1..100). Writes carry event ids
 * (`<run>:<n>`) as a game server's would, and timestamp 0 (ingest stamps them). A write
 * batch may carry a freshness probe on its last update (see freshness-probe.ts).
 */
import * as grpc from "@grpc/grpc-js";
import { Operation as WireOp } from "@ladder/proto/leaderboard/v1/common_pb";
import type { Operation } from "../workload/op-mix.js";
import { playerId, type PlayerChooser } from "../workload/player-ids.js";
import type { Rng } from "../workload/rng.js";
import type { ScoreSource } from "../workload/score-distribution.js";
import type { ClusterClients } from "./cluster-clients.js";
import type { FreshnessProbe } from "./freshness-probe.js";
import type { WriteAudit } from "./write-audit.js";
import type { LoadtestOptions, WriteOp } from "./options.js";

const WIRE_OP: Record<WriteOp, WireOp> = { set: WireOp.SET, inc: WireOp.INCREMENT, best: WireOp.BEST };
const MAX_INCREMENT = 100;

export interface OperationDeps {
  clients: ClusterClients;
  options: Pick<LoadtestOptions, "board" | "batch" | "writeOp" | "topLimit" | "aroundRadius">;
  rng: Rng;
  players: PlayerChooser;
  scores: ScoreSource;
  probe: FreshnessProbe | undefined;
  /** The loss audit, if the run keeps one (write-audit.ts). */
  audit?: WriteAudit;
  runId: string;
  clock(): number;
}

/**
 * Sends one request of `op`, sent at `sentMs` (the time the run counts it by: a write's
 * freshness probe counts when its write does); resolves when answered, rejects with the
 * gRPC error.
 */
export type OperationRunner = (op: Operation, sentMs: number) => Promise<unknown>;

export function operationRunner(deps: OperationDeps): OperationRunner {
  const { clients, options, rng, players, scores, probe, runId } = deps;
  const { board } = options;
  let seq = 0;
  const nextPlayer = () => playerId(players.nextIndex(rng));
  const writeValue = () => (options.writeOp === "inc" ? 1 + rng.nextInt(MAX_INCREMENT) : scores.points(rng));

  async function write(sentMs: number): Promise<unknown> {
    const updates = Array.from({ length: options.batch }, () => ({
      board,
      playerId: nextPlayer(),
      op: WIRE_OP[options.writeOp],
      value: BigInt(writeValue()),
      timestampMs: 0n,
      eventId: `${runId}:${seq++}`,
    }));
    const last = updates[updates.length - 1]!;
    const probed = probe?.claim(last.playerId) ?? false;
    if (probed) {
      Object.assign(last, { op: WireOp.SET, value: BigInt(scores.points(rng)) });
      deps.audit?.exclude(last.playerId);
    }
    for (const u of probed ? updates.slice(0, -1) : updates) probe?.noteWrite(u.playerId, options.writeOp, Number(u.value));
    try {
      const res = await clients.ingest().submitScores({ updates });
      deps.audit?.acknowledged(probed ? updates.slice(0, -1) : updates);
      if (probed) probe!.start(last.playerId, Number(last.value), deps.clock(), sentMs);
      return res;
    } catch (err) {
      if (probed) probe!.abandon(last.playerId, sentMs);
      deps.audit?.failed(updates);
      throw err;
    }
  }

  const runners: Record<Operation, (sentMs: number) => Promise<unknown>> = {
    write,
    top: () => clients.router().getTop({ board, limit: options.topLimit, offset: 0n }),
    rank: () => clients.router().getRank({ board, playerId: nextPlayer() }),
    around: () => clients.router().getAround({ board, playerId: nextPlayer(), radius: options.aroundRadius }),
  };
  return (op, sentMs) => runners[op](sentMs);
}

/** A plain read of a player's score for the freshness probe: undefined when it has none. */
export function scoreReader(clients: ClusterClients, board: string): (playerId: string) => Promise<number | undefined> {
  return async (id) => {
    try {
      const res = await clients.router().getRank({ board, playerId: id });
      return res.entry ? Number(res.entry.score) : undefined;
    } catch (err) {
      if ((err as { code?: number }).code === grpc.status.NOT_FOUND) return undefined; // NOT_FOUND: not applied yet
      throw err;
    }
  };
}
