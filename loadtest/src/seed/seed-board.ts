/**
 * The board a Kafka seed writes to, as ingest would resolve it: a board defined with
 * AdminService.CreateBoard (read from the definitions topic, as router and ingest read it) is
 * seeded by its definition — its points range and resolution check every record, its rules and
 * generation travel in every record, so the shard nodes keep its histogram and name its keys by
 * generation; any other board takes the configured spec of boards without a definition. Only
 * all-time boards whose operations allow SET can be seeded (a seed SETs each player's score):
 * periods and windows need each record's period resolved by ingest.
 */
import { storedBoardName, type BoardSpec } from "@ladder/model/board-spec";
import { BoardDefinitions, boardsTopicOf } from "@ladder/log/board-definitions-follower";
import type { LogClient } from "@ladder/log/log-client";
import { specOfDefinition } from "@ladder/model/board-definitions";
import type { Config } from "@ladder/platform/config";
import type { Logger } from "@ladder/platform/logger";
import { resolveOp } from "@ladder/model/validate";
import type { BoardRules } from "@ladder/proto/leaderboard/v1/common_pb";
import { Operation } from "@ladder/proto/leaderboard/v1/common_pb";

export interface SeedBoard {
  spec: BoardSpec;
  /** A defined board's rules, copied into every record (as ingest does); absent for a board without a definition. */
  rules?: BoardRules;
  /** The name its keys are stored under (a defined board's carries its generation). */
  stored: string;
}

/** The board's spec from the configuration alone (boards without a definition). */
export function configuredBoard(config: Pick<Config, "boards">, board: string): SeedBoard {
  return { spec: config.boards.forBoard(board), stored: board };
}

/** Reads the definitions topic to its end once and resolves `board`; throws when it is a defined board that cannot be seeded. */
export async function resolveSeedBoard(config: Config, client: LogClient, log: Logger, board: string): Promise<SeedBoard> {
  const defs = await BoardDefinitions.start({ client, topic: boardsTopicOf(config.scoreTopic), implicit: undefined, log });
  const definition = defs.catalog.definition(board);
  await defs.stop();
  if (!definition) return configuredBoard(config, board);
  const spec = specOfDefinition(definition);
  if (spec.period.kind !== "none")
    throw new Error(`board "${board}" has periods: seed it through ingest (SubmitScores), which resolves each record's period`);
  const op = resolveOp(Operation.SET, spec);
  if ("problem" in op) throw new Error(`a seed SETs scores: ${op.problem}`);
  return { spec, rules: definition.rules!, stored: storedBoardName(board, spec) };
}
