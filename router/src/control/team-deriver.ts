/**
 * The team deriver: carries members' points to their teams (the rules and why it is exact:
 * model/src/teams.ts).
 *
 * Every router runs one while any team board is defined. They read the score log as one Kafka
 * consumer group ("<score topic>.deriver.teams"): each partition is read by one router at a time,
 * and a router that dies hands its partitions to the others (after the group's session timeout).
 * For each batch of a partition: the records that can change a member's contribution (a write to
 * a team board's source, a membership, an erasure, a player's moderation on a source) name the
 * members; the deriver waits until the member's shard applied the batch, reads the members there
 * in one atomic read (team, teams left, points, the partition's applied offset), writes one
 * contribution record per team concerned to the team's partition, and only once the log holds
 * them commits the batch's position. A deriver that dies before the commit leaves the batch to be
 * read again, by itself or another router: contributions written twice change nothing.
 *
 * COSTS. Every record of the log is decoded once by one router (only while team boards exist);
 * per batch with members: one wait and one read of the partition's shard, one produce call.
 */
import type { BoardDefinitions } from "@ladder/log/board-definitions-follower";
import type { BoardCatalog } from "@ladder/model/board-definitions";
import { readGroupBatches, teamDeriverGroupOf, type GroupReading } from "@ladder/log/group-batches";
import type { LogClient } from "@ladder/log/log-client";
import type { OutgoingRecord, RecordProducer } from "@ladder/log/record-producer";
import { storedBoardName } from "@ladder/model/board-spec";
import { slotOf } from "@ladder/model/placement";
import { decodeSortKey } from "@ladder/model/score-encoding";
import { decodeScoreEvent, encodeTeamContribution } from "@ladder/model/score-event";
import type { Logger } from "@ladder/platform/logger";
import type { ScoreEvent } from "@ladder/proto/leaderboard/v1/events_pb";
import type { ShardPool } from "../read/shard-pool.js";
import { waitApplied } from "../read/wait-applied.js";

export interface TeamDeriverDeps {
  definitions: BoardDefinitions;
  pool: ShardPool;
  /** The router's reading log client (its login reads the score topic and joins the deriver's group). */
  logClient: LogClient;
  scoreTopic: string;
  numSlots: number;
  /** The control plane's producer (its login writes the score topic). */
  producer: () => Promise<RecordProducer>;
  log: Logger;
  /** Between two looks for team boards, ms. */
  intervalMs?: number;
  clock?: () => number;
}

const NONE: readonly string[] = Object.freeze([]);

/** How long the deriver waits for a member's shard to apply a batch before reading the batch again. */
const APPLY_WAIT_MS = 30_000;
/** Members per read of a shard, and records per produce call. */
const CHUNK = 500;
/** Partitions a deriver works on at once: each batch waits for its shard and the log, so one at a time would leave it idle. */
const PARTITIONS_AT_ONCE = 8;
/** The consumer group's session timeout: how long a dead router keeps its partitions. */
const SESSION_TIMEOUT_MS = 10_000;

export interface TeamDeriver {
  stop(): Promise<void>;
}

export function startTeamDeriver(d: TeamDeriverDeps): TeamDeriver {
  const clock = d.clock ?? Date.now;
  let reading: GroupReading | undefined;
  let stopping = false;
  let wake: (() => void) | undefined;

  /** The team boards by source board, and all of them: worked out again only when the catalog changed (it is swapped whole). */
  let known: { catalog: BoardCatalog; bySource: Map<string, string[]>; teams: Set<string> } | undefined;
  const teamBoards = () => {
    const catalog = d.definitions.catalog;
    if (known?.catalog !== catalog) {
      const bySource = new Map<string, string[]>();
      for (const def of catalog.list()) {
        const source = def.rules?.team?.source;
        if (source) bySource.set(source, [...(bySource.get(source) ?? []), def.name]);
      }
      known = { catalog, bySource, teams: new Set([...bySource.values()].flat()) };
    }
    return known;
  };

  /** The (team board, player) pairs a record may change: every record of the log comes here, most concern none. */
  const concerned = (e: ScoreEvent, bySource: Map<string, string[]>, teams: Set<string>): readonly string[] => {
    if (e.teamMember) return teams.has(e.board) ? [e.board] : NONE;
    // the team boards fed by the boards named, and the team boards named themselves (a membership erased)
    const boardsOf = (names: readonly string[]): readonly string[] => {
      let out: Set<string> | undefined;
      for (const b of names) {
        for (const t of bySource.get(b) ?? NONE) (out ??= new Set()).add(t);
        if (teams.has(b)) (out ??= new Set()).add(b);
      }
      return out ? [...out] : NONE;
    };
    if (e.erase) return e.eraseBoards.length === 0 ? [...teams] : boardsOf(e.eraseBoards);
    if (e.moderation) {
      if (e.moderation.playerId === "") return NONE; // board-wide actions on sources are refused (moderation.ts)
      return e.moderation.board === "" ? [...teams] : boardsOf([e.moderation.board]);
    }
    if (e.teamContribution || e.closePeriod || e.deleteBoard || e.leaguePlace || e.leagueTier || e.leagueSettled) return NONE;
    if (e.also.length === 0 && !e.leave) return boardsOf([e.board]);
    return boardsOf([e.board, ...e.also.map((b) => b.board), ...(e.leave ? [e.leave.board] : [])]);
  };

  /** Derives one batch of partition `partition`: its members' contributions written to their teams. */
  const derive = async (partition: number, values: Array<Buffer | null>, lastOffset: bigint): Promise<void> => {
    const { bySource, teams } = teamBoards();
    const pairs = new Map<string, { teamBoard: string; playerId: string }>();
    for (const value of values) {
      if (!value) continue;
      let e: ScoreEvent;
      try {
        e = decodeScoreEvent(value);
      } catch {
        continue; // the shards skip it too
      }
      if (e.playerId === "") continue;
      for (const teamBoard of concerned(e, bySource, teams)) pairs.set(`${teamBoard}\n${e.playerId}`, { teamBoard, playerId: e.playerId });
    }
    if (pairs.size === 0) return;
    await waitApplied(d.pool, new Map([[partition, lastOffset]]), APPLY_WAIT_MS, Number.POSITIVE_INFINITY);
    const catalog = d.definitions.catalog;
    const items = [...pairs.values()].flatMap(({ teamBoard, playerId }) => {
      const spec = catalog.forBoard(teamBoard);
      const sourceSpec = spec?.team && catalog.forBoard(spec.team.source);
      if (!spec?.team || !sourceSpec) return []; // deleted since
      return [
        {
          teamBoard: storedBoardName(teamBoard, spec),
          source: storedBoardName(spec.team.source, sourceSpec),
          playerId,
          partition,
          name: teamBoard,
          rules: catalog.definition(teamBoard)!.rules!,
          sourceSpec,
        },
      ];
    });
    const records: OutgoingRecord[] = [];
    const at = clock();
    for (let i = 0; i < items.length; i += CHUNK) {
      const chunk = items.slice(i, i + CHUNK);
      const read = await d.pool.call(d.pool.ownerOfSlot(partition), (s) => s.teamSources(chunk));
      chunk.forEach((item, j) => {
        const r = read[j]!;
        if (r.asOf < lastOffset) throw new Error(`partition ${partition} read at ${r.asOf}, before ${lastOffset}: the placement moved`);
        const contribution = (team: string, points: number, left: boolean) => ({
          key: item.playerId,
          partition: slotOf(team, d.numSlots),
          value: encodeTeamContribution(item.name, item.rules, { playerId: item.playerId, team, points, asOf: r.asOf, left }, at),
        });
        const points = r.key === undefined ? 0 : decodeSortKey(item.sourceSpec, r.key).points;
        if (r.team !== "") records.push(contribution(r.team, points, false));
        for (const team of r.left) records.push(contribution(team, 0, true));
      });
    }
    const producer = await d.producer();
    for (let i = 0; i < records.length; i += CHUNK) await producer.send(d.scoreTopic, records.slice(i, i + CHUNK));
  };

  const start = async (): Promise<void> => {
    reading = await readGroupBatches(d.logClient, {
      groupId: teamDeriverGroupOf(d.scoreTopic),
      topic: d.scoreTopic,
      sessionTimeoutMs: SESSION_TIMEOUT_MS,
      concurrency: PARTITIONS_AT_ONCE,
      onBatch: derive,
    });
    d.log.info({ group: teamDeriverGroupOf(d.scoreTopic) }, "team deriver started");
  };

  const loop = (async () => {
    while (!stopping) {
      if (!reading && teamBoards().teams.size > 0)
        await start().catch((err: unknown) => d.log.warn({ err }, "team deriver: could not start; trying again"));
      await new Promise<void>((r) => {
        wake = r;
        setTimeout(r, d.intervalMs ?? 1000).unref();
      });
    }
  })();

  return {
    async stop() {
      stopping = true;
      wake?.();
      await loop;
      await reading?.stop().catch(() => {});
    },
  };
}
