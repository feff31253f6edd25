/**
 * Tournaments: a board of one period with members, a size limit and a limit of attempts per
 * member (BoardRules.tournament, PERIOD_KIND_TOURNAMENT). These are the rules; the apply script
 * (store/src/lua/includes/apply-tournaments.lua) enforces them, ingest and the router ask it.
 *
 * ONE PERIOD. A tournament's board has one period, named "T", from `startMs` to `endMs`
 * (exclusive). A write whose timestamp falls outside it is refused by ingest, naming the start or
 * the end, nothing written. The period closes as a season's does (closes.ts): at `endMs` plus the
 * board's close grace (a tournament always closes: grace 0 when the definition names none), with
 * its close event and rewards by rank. Its keys expire TOURNAMENT_KEPT_MS after the close.
 *
 * JOINS ARE ORDERED BY THE LOG. "Refused when full" must hold exactly whatever number of ingest
 * processes take joins at once, and a rebuild must admit the same players. So a join is a record
 * (ScoreEvent.join_tournament) in ONE partition of the score log, the tournament's: murmur3 of the
 * board name mod the slots (joinPartitionOf). Every join of a tournament is then in one total
 * order, the partition's, and the shard applying it admits in that order: a player already a
 * member changes nothing; a join whose ingest time is at or after the end is refused ("closed");
 * with `maxSize` members already, refused ("full"); else admitted. Every input of that decision is
 * in the record or in the set the partition's earlier joins made, so every replay decides alike.
 * The members are the sorted set "<period key>!join" (member: player, score: the join's offset).
 *
 * MEMBERSHIP WHERE THE WRITES ARE. A player's writes go to its own partition (placement.ts), which
 * may be another shard's. Once a join is admitted (ingest reads the join set after its record is
 * applied), ingest writes a membership record (ScoreEvent.tournament_member) to the player's
 * partition, and answers the join once that record is in the log: every write the player makes
 * after the answer follows its membership in the partition's order. The player's shard keeps the
 * members and their attempts used in "<period key>!att" (member: player, score: attempts). An
 * ingest that dies between the two records leaves a member admitted without its membership: the
 * player's writes are refused as a non-member's until it joins again (a repeated join of a member
 * writes the membership again; a membership written twice changes nothing).
 *
 * ATTEMPTS ARE COUNTED IN THE APPLY. Each write the player's shard applies to the tournament
 * counts one attempt, in the same script call, in log order; with `maxAttempts` used, the write is
 * refused and changes nothing; a write of a player who is no member (when `joinRequired`) likewise.
 * A refused record stays in the log and is refused again on every replay (its inputs are the
 * record and the partition's earlier records): a rebuild counts the same attempts. A retried write
 * (same event id, within the dedup window) that was applied counts once; one that was refused is
 * decided again. Ingest learns the outcome from the shard (the record's report id names a key the
 * apply writes, kept 60 s) and answers FAILED_PRECONDITION naming the limit, so a tournament's
 * update is alone in its batch: a batch is answered as one.
 *
 * WITHOUT JOINS. With `joinRequired` false anyone may write, each player's attempts still counted;
 * a size limit needs joins (the size is counted in one partition, the writes are in the players').
 *
 * COSTS. A join: two records, the answer waits for the first to be applied (a few ms on a live
 * shard). A tournament write: one ZSCORE and one ZADD more in the apply, and the answer waits for
 * the apply. A listing: one ZCARD per tournament listed, on the shard of its partition.
 */
import { slotOf } from "./placement.js";
import { boardProblem } from "./validate.js";

export { TOURNAMENT_KEPT_MS, TOURNAMENT_PERIOD } from "./periods.js";

/** The most members or attempts a tournament may declare. */
export const MAX_TOURNAMENT_SIZE = 1_000_000;
export const MAX_TOURNAMENT_ATTEMPTS = 1_000_000;

/** The longest a tournament may last: 366 days. */
export const MAX_TOURNAMENT_MS = 366 * 86_400_000;

/** A tournament's rules, as the model uses them (numbers, end resolved). */
export interface Tournament {
  category: string;
  startMs: number;
  endMs: number;
  joinRequired: boolean;
  maxSize: number;
  maxAttempts: number;
}

/** What a TournamentRule message holds (the proto's fields, int64 as bigint). */
export interface TournamentRuleFields {
  category: string;
  startMs: bigint;
  endMs: bigint;
  durationMs: bigint;
  joinRequired: boolean;
  maxSize: number;
  maxAttempts: number;
}

/**
 * A requested rule with its end resolved (end_ms, or start_ms + duration_ms), or what is wrong with
 * it (INVALID_ARGUMENT, naming the field and the limit).
 */
export function resolveTournament(r: TournamentRuleFields): { tournament?: Tournament; problem?: string } {
  const bad = (problem: string) => ({ problem });
  const category = boardProblem(r.category);
  if (category) return bad(`tournament.${category.replace(/^board/, "category")}`);
  const startMs = Number(r.startMs);
  if (!Number.isSafeInteger(startMs) || startMs <= 0) return bad(`tournament.start_ms must be a time (Unix ms) above 0, got ${r.startMs}`);
  if (r.endMs !== 0n && r.durationMs !== 0n) return bad("tournament: give end_ms or duration_ms, not both");
  const endMs = r.endMs !== 0n ? Number(r.endMs) : startMs + Number(r.durationMs);
  if (r.endMs === 0n && r.durationMs <= 0n) return bad(`tournament.duration_ms must be above 0 when end_ms is 0, got ${r.durationMs}`);
  if (!Number.isSafeInteger(endMs) || endMs <= startMs)
    return bad(`tournament.end_ms must be after start_ms (${new Date(startMs).toISOString()}), got ${r.endMs}`);
  if (endMs - startMs > MAX_TOURNAMENT_MS)
    return bad(`tournament: it may last at most ${MAX_TOURNAMENT_MS} ms (366 days), got ${endMs - startMs}`);
  if (!Number.isInteger(r.maxSize) || r.maxSize < 0 || r.maxSize > MAX_TOURNAMENT_SIZE)
    return bad(`tournament.max_size must be 0 (no limit) to ${MAX_TOURNAMENT_SIZE}, got ${r.maxSize}`);
  if (r.maxSize > 0 && !r.joinRequired) return bad("tournament.max_size needs join_required: the size is counted by joins");
  if (!Number.isInteger(r.maxAttempts) || r.maxAttempts < 0 || r.maxAttempts > MAX_TOURNAMENT_ATTEMPTS)
    return bad(`tournament.max_attempts must be 0 (no limit) to ${MAX_TOURNAMENT_ATTEMPTS}, got ${r.maxAttempts}`);
  return {
    tournament: { category: r.category, startMs, endMs, joinRequired: r.joinRequired, maxSize: r.maxSize, maxAttempts: r.maxAttempts },
  };
}

/** The partition of the score log that holds every join of tournament `board` (the board's name's slot). */
export const joinPartitionOf = (board: string, numSlots: number): number => slotOf(board, numSlots);

const iso = (ms: number) => new Date(ms).toISOString();

/** Why a write at `timestampMs` takes no part in tournament `board`, or undefined when it falls within it. */
export function tournamentTimeProblem(board: string, t: Pick<Tournament, "startMs" | "endMs">, timestampMs: number): string | undefined {
  if (timestampMs < t.startMs)
    return `timestamp_ms ${timestampMs} is before tournament "${board}" starts (${iso(t.startMs)}): it takes writes from ${iso(t.startMs)} to ${iso(t.endMs)}`;
  if (timestampMs >= t.endMs)
    return `timestamp_ms ${timestampMs} is at or after tournament "${board}" ended (${iso(t.endMs)}): it took writes from ${iso(t.startMs)} to ${iso(t.endMs)}`;
  return undefined;
}

/** Why a join of tournament `board` reaching the log at `atMs` is refused as closed, or undefined. */
export function joinClosedProblem(board: string, t: Pick<Tournament, "endMs">, atMs: number): string | undefined {
  return atMs >= t.endMs ? `tournament "${board}" is closed to joins: it ended at ${iso(t.endMs)}` : undefined;
}

/** The refusal of a join of a full tournament. */
export const fullMessage = (board: string, player: string, maxSize: number) =>
  `tournament "${board}" is full: its max_size of ${maxSize} members joined before player "${player}"`;

/** The refusal of a write of a player who has not joined. */
export const notMemberMessage = (board: string, player: string) =>
  `player "${player}" is not a member of tournament "${board}": JoinTournament first (join_required)`;

/** The refusal of a write past the attempts. */
export const attemptsMessage = (board: string, player: string, maxAttempts: number) =>
  `player "${player}" has used its max_attempts of ${maxAttempts} in tournament "${board}": the write is refused, the entry unchanged`;

export type TournamentState = "upcoming" | "active" | "ended";

/** Where a tournament stands at `nowMs`. */
export function tournamentState(t: Pick<Tournament, "startMs" | "endMs">, nowMs: number): TournamentState {
  return nowMs < t.startMs ? "upcoming" : nowMs < t.endMs ? "active" : "ended";
}

/** A listed tournament: its board name and rules. */
export interface Listed {
  name: string;
  tournament: Tournament;
}

/**
 * The page of tournaments not ended at `nowMs` of `category` ("" = every category), ordered by
 * start then name, after the position `after` (a page token's) and at most `size` of them; `next`
 * is the token of the page after, or "" on the last.
 */
export function tournamentPage(
  all: readonly Listed[],
  o: { category: string; nowMs: number; size: number; after?: { startMs: number; name: string } },
): { page: Listed[]; next: string } {
  const open = all
    .filter((l) => (o.category === "" || l.tournament.category === o.category) && o.nowMs < l.tournament.endMs)
    .sort((a, b) => a.tournament.startMs - b.tournament.startMs || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const after = o.after;
  const from = after
    ? open.filter((l) => l.tournament.startMs > after.startMs || (l.tournament.startMs === after.startMs && l.name > after.name))
    : open;
  const page = from.slice(0, o.size);
  const last = page[page.length - 1];
  return { page, next: from.length > o.size && last ? encodePageToken(last.tournament.startMs, last.name) : "" };
}

/** A page token: where the page before ended (base64url of "<start ms>\n<name>"). */
export function encodePageToken(startMs: number, name: string): string {
  return Buffer.from(`${startMs}\n${name}`, "utf8").toString("base64url");
}

/** The position a page token stands for, or undefined when it is not a token. */
export function decodePageToken(token: string): { startMs: number; name: string } | undefined {
  const text = Buffer.from(token, "base64url").toString("utf8");
  const m = /^(\d{1,16})\n(.+)$/s.exec(text);
  if (!m || boardProblem(m[2]!) !== undefined) return undefined;
  return { startMs: Number(m[1]), name: m[2]! };
}
