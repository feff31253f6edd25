/**
 * AdminService's board rpcs: define, read, list, update and delete boards (model/src/board-definitions.ts
 * says where definitions live and how every service follows them).
 *
 * A create or update writes the definition to the definitions topic, then waits until this
 * router's follower has read it back (so the next read through this router knows the board)
 * and answers with what the follower holds: when a concurrent call wrote the same name after
 * this one, the caller learns that its definition lost (ABORTED).
 */
import { retentionProblem } from "@ladder/model/retention";
import { create } from "@bufbuild/protobuf";
import type { RecordProducer } from "@ladder/log/record-producer";
import { BoardDefinitionSchema, type AdminService, type BoardDefinition } from "@ladder/proto/leaderboard/v1/admin_pb";
import {
  ceilingProblem,
  defaultOpOf,
  MAX_BOARDS,
  maxMetadataProblem,
  normalizeDefinition,
  sameRules,
  type BoardCatalog,
} from "@ladder/model/board-definitions";
import { publishDefinition, removeDefinition, type BoardDefinitions } from "@ladder/log/board-definitions-follower";
import { encodeToken } from "@ladder/model/consistency-token";
import { encodeBoardDeletion } from "@ladder/model/score-event";
import { storedBoardName } from "@ladder/model/board-spec";
import { Code, LadderError, invalidArgument, notFound } from "@ladder/model/errors";
import type { ImplOf } from "@ladder/platform/grpc-adapter";
import type { Logger } from "@ladder/platform/logger";
import { boardPrefixProblem, boardProblem } from "@ladder/model/validate";
import { quotaProblem } from "@ladder/model/write-quota";
import { nextResetMs, periodAt } from "@ladder/model/periods";
import { compareMembers, decodeSortKey } from "@ladder/model/score-encoding";
import { EntrySchema } from "@ladder/proto/leaderboard/v1/common_pb";
import type { PeriodCloses } from "@ladder/log/period-closes";

type BoardRpcs = Pick<
  ImplOf<typeof AdminService>,
  "createBoard" | "getBoard" | "listBoards" | "updateBoard" | "deleteBoard" | "listCloses"
>;

export interface BoardAdminDeps {
  definitions: BoardDefinitions;
  /** The definitions topic. */
  topic: string;
  /** The score log, where a deletion writes its markers, and its partitions. */
  scoreTopic: string;
  partitions: number;
  /** A producer (connected on first use). */
  producer: () => Promise<RecordProducer>;
  /** Entries held under a stored board name on the live shards (a board written without a definition). */
  sizeOf(stored: string): Promise<number>;
  /** The trim floors every shard holds under a stored board name (store/src/reader.ts floors). */
  floorsOf(stored: string): Promise<Array<{ key: number; playerId: string }>>;
  /** The periods' close events (closer.ts writes them). */
  closes: PeriodCloses;
  log: Logger;
}

/** How long after a definition was written every follower has it (a waiting fetch returns as soon as it arrives). */
const FOLLOW_BOUND_MS = 1000;

/** How long a call waits for its own definition to come back through the topic. */
const READ_BACK_MS = 10_000;

export function boardAdmin(d: BoardAdminDeps): BoardRpcs {
  const publish = async (def: BoardDefinition): Promise<BoardDefinition> => {
    const offset = await publishDefinition(await d.producer(), d.topic, def);
    await d.definitions.waitFor(offset, READ_BACK_MS).catch((err: Error) => {
      throw new LadderError(
        Code.UNAVAILABLE,
        `the definition of "${def.name}" was written (offset ${offset}) but not read back: ${err.message}`,
        { retriable: true },
      );
    });
    const now = d.definitions.catalog.definition(def.name);
    if (!now || now.rules?.generation !== def.rules?.generation || now.updatedAtMs !== def.updatedAtMs)
      throw new LadderError(
        Code.ABORTED,
        `board "${def.name}" was defined by another call at the same time; its definition is the one kept (GetBoard)`,
      );
    return now;
  };
  /** A definition as answered: with when the board next starts over, by this router's clock. */
  const answered = (def: BoardDefinition): BoardDefinition => {
    const period = d.definitions.catalog.forBoard(def.name)?.period;
    return create(BoardDefinitionSchema, { ...def, nextResetMs: BigInt(period ? nextResetMs(period, Date.now()) : 0) });
  };
  /** A board with retention as GetBoard answers it: its current period's size and highest floor, read on the shards. */
  const withRetention = async (def: BoardDefinition): Promise<BoardDefinition> => {
    const spec = d.definitions.catalog.forBoard(def.name);
    if (!spec || (spec.retention.keepTop === 0 && spec.retention.expireInactiveMs === 0)) return def;
    const stored = storedBoardName(def.name, spec, spec.period.kind === "none" ? "" : periodAt(spec.period, Date.now()).id);
    const [size, floors] = await Promise.all([d.sizeOf(stored), d.floorsOf(stored)]);
    const highest = floors.reduce<(typeof floors)[number] | undefined>((a, b) => (!a || compareMembers(b, a) < 0 ? b : a), undefined);
    const floor = highest && decodeSortKey(spec, highest.key);
    return create(BoardDefinitionSchema, {
      ...def,
      retainedEntries: BigInt(size),
      ...(highest && floor
        ? {
            retentionFloor: create(EntrySchema, {
              playerId: highest.playerId,
              score: BigInt(floor.points),
              reachedAtMs: BigInt(floor.reachedAtMs),
            }),
          }
        : {}),
    });
  };
  const existing = (name: string): BoardDefinition => {
    const problem = boardProblem(name);
    if (problem) throw invalidArgument(problem);
    const def = d.definitions.catalog.definition(name);
    if (!def) throw notFound(`board "${name}" is not defined`);
    return def;
  };

  return {
    async createBoard(req) {
      const { definition, problems } = normalizeDefinition(req.board ?? create(BoardDefinitionSchema), Date.now());
      if (!definition) throw invalidArgument(problems.join("; "));
      const catalog = d.definitions.catalog;
      if (catalog.definition(definition.name))
        throw new LadderError(Code.ALREADY_EXISTS, `board "${definition.name}" is already defined (UpdateBoard changes what can change)`);
      if (catalog.size >= MAX_BOARDS)
        throw new LadderError(
          Code.RESOURCE_EXHAUSTED,
          `the cluster holds ${catalog.size} defined boards, its limit (MAX_BOARDS = ${MAX_BOARDS})`,
        );
      const team = definition.rules?.team;
      if (team) {
        // a team board follows its source's entries (model/src/teams.ts): a defined, all-time board that nothing trims
        const source = catalog.forBoard(team.source);
        const problem = !catalog.definition(team.source)
          ? "is not defined"
          : source!.team
            ? "is a team board"
            : source!.columns
              ? "has columns (a team adds up one score per member)"
              : source!.period.kind !== "none"
                ? "has periods (a team board follows all-time points)"
                : source!.retention.keepTop || source!.retention.expireInactiveMs
                  ? "has retention (keep_top or expire_inactive_ms would drop members' points behind the teams' backs)"
                  : undefined;
        if (problem) throw new LadderError(Code.FAILED_PRECONDITION, `team.source: board "${team.source}" ${problem}`);
      }
      const implicit = catalog.implicitSpec(definition.name);
      if (implicit) {
        const held = await d.sizeOf(storedBoardName(definition.name, implicit));
        if (held > 0)
          throw new LadderError(
            Code.FAILED_PRECONDITION,
            `board "${definition.name}" holds ${held} entries written without a definition; a definition would start it empty under new rules: pick another name`,
          );
      }
      const board = await publish(definition);
      // with boards taken without a definition, a write that reached ingest before it knew this one
      // would go to the undefined board of that name: answer once ingest's follower has had its bound
      if (implicit) await new Promise((r) => setTimeout(r, FOLLOW_BOUND_MS));
      d.log.info({ board: board.name, generation: String(board.rules?.generation) }, "board defined");
      return { board: answered(board) };
    },

    async getBoard(req) {
      return { board: await withRetention(answered(existing(req.name))) };
    },

    async listBoards(req) {
      const problem = boardPrefixProblem(req.prefix);
      if (problem) throw invalidArgument(problem);
      return { boards: d.definitions.catalog.list(req.prefix).map(answered) };
    },

    async updateBoard(req) {
      const wanted = req.board ?? create(BoardDefinitionSchema);
      const current = existing(wanted.name);
      if (wanted.rules) {
        const asNew = normalizeDefinition(create(BoardDefinitionSchema, { name: wanted.name, rules: wanted.rules }), 0).definition;
        if (!asNew || !sameRules(asNew.rules!, current.rules!))
          throw new LadderError(
            Code.FAILED_PRECONDITION,
            `board "${wanted.name}": its rules (order, tie rule, points range, resolution, epoch) never change; leave rules unset or equal to the board's`,
          );
      }
      const defaultOp = defaultOpOf(wanted.defaultOp);
      if (typeof defaultOp === "string") throw invalidArgument(defaultOp);
      const retention = retentionProblem(current.rules!, defaultOp);
      if (retention) throw invalidArgument(`default_op: ${retention}`);
      const metadata = maxMetadataProblem(wanted.maxMetadataBytes);
      if (metadata) throw invalidArgument(metadata);
      const quota = quotaProblem(wanted.quota);
      if (quota) throw invalidArgument(quota);
      const ceiling = ceilingProblem(wanted.scoreCeiling, current.rules!);
      if (ceiling) throw invalidArgument(ceiling);
      const next = create(BoardDefinitionSchema, {
        ...current,
        nextResetMs: 0n,
        defaultOp,
        allowOpOverride: wanted.allowOpOverride,
        maxMetadataBytes: wanted.maxMetadataBytes,
        quota: wanted.quota,
        scoreCeiling: wanted.scoreCeiling,
        updatedAtMs: BigInt(Math.max(Date.now(), Number(current.updatedAtMs) + 1)),
      });
      const board = await publish(next);
      d.log.info({ board: board.name }, "board updated");
      return { board: answered(board) };
    },

    async listCloses(req) {
      const def = existing(req.board);
      const closes = d.closes
        .all()
        .filter((c) => c.board === def.name && c.generation === def.rules!.generation)
        .sort((a, b) => Number(a.startMs - b.startMs) || (a.period < b.period ? -1 : a.period > b.period ? 1 : 0)); // a league's cohorts share their period's start
      return { closes };
    },

    async deleteBoard(req) {
      const current = existing(req.name);
      const fed = teamBoardsOf(d.definitions.catalog, current.name);
      if (fed.length)
        throw new LadderError(
          Code.FAILED_PRECONDITION,
          `board "${current.name}" is the source of team board${fed.length > 1 ? "s" : ""} ${fed.map((b) => `"${b}"`).join(", ")}: delete ${fed.length > 1 ? "them" : "it"} first`,
        );
      const producer = await d.producer();
      // the definition first: from then on ingest refuses the board (within its follower's bound)
      const offset = await removeDefinition(producer, d.topic, current.name);
      await d.definitions.waitFor(offset, READ_BACK_MS).catch((err: Error) => {
        throw new LadderError(
          Code.UNAVAILABLE,
          `the deletion of "${current.name}" was written (offset ${offset}) but not read back: ${err.message}`,
          { retriable: true },
        );
      });
      // then a marker in every partition: each shard drops the generation's keys once it applied all of its own
      const ingestedAtMs = Date.now();
      const value = encodeBoardDeletion(current.name, current.rules!, ingestedAtMs);
      const sent = await producer.send(
        d.scoreTopic,
        Array.from({ length: d.partitions }, (_, partition) => ({ key: current.name, value, partition })),
      );
      const markers = new Map(sent.map((m) => [m.partition, BigInt(m.baseOffset)] as const));
      d.log.info({ board: current.name, generation: String(current.rules?.generation), partitions: markers.size }, "board deleted");
      return {
        board: current,
        markers: [...markers].sort(([a], [b]) => a - b).map(([partition, offset]) => ({ partition, offset })),
        consistencyToken: encodeToken(markers),
      };
    },
  };
}

/** The team boards whose source is `board` (model/src/teams.ts). */
export function teamBoardsOf(catalog: BoardCatalog, board: string): string[] {
  return catalog
    .list()
    .filter((d) => d.rules?.team?.source === board)
    .map((d) => d.name);
}
