/**
 * What the batch benchmark checks before it times anything (the boards at rest, so batched
 * reads and their one-at-a-time equivalents must agree exactly): GetRanks against GetRank of each
 * player, GetStanding against GetRank on each board, and a walk through next_cursor that sees
 * ranks 1..total once each in order; the full list is in batch.md, "Checked". Each returns the
 * problems found as sentences (none: the answer is right).
 */
import type { Entry } from "@ladder/proto/leaderboard/v1/common_pb";
import type {
  BoardRef,
  GetRankResponse,
  GetRanksResponse,
  GetStandingResponse,
  GetTopResponse,
} from "@ladder/proto/leaderboard/v1/leaderboard_pb";

/** An entry without its message type, numbers as numbers. */
export interface PlainEntry {
  playerId: string;
  score: number;
  rank: number;
  reachedAtMs: number;
}

export function plain(e: Pick<Entry, "playerId" | "score" | "rank" | "reachedAtMs">): PlainEntry {
  return { playerId: e.playerId, score: Number(e.score), rank: Number(e.rank), reachedAtMs: Number(e.reachedAtMs) };
}

const show = (e: PlainEntry | undefined) => (e ? `${e.playerId} ${e.score} pts rank ${e.rank} at ${e.reachedAtMs}` : "none");
const sameEntry = (a: PlainEntry | undefined, b: PlainEntry | undefined) =>
  a !== undefined &&
  b !== undefined &&
  a.playerId === b.playerId &&
  a.score === b.score &&
  a.rank === b.rank &&
  a.reachedAtMs === b.reachedAtMs;

/** A GetRanks answer for `asked` against GetRank of each of them (`single`, by player) on a board of `total` players. */
export function ranksProblems(
  asked: readonly string[],
  res: Pick<GetRanksResponse, "entries" | "missing" | "total">,
  single: ReadonlyMap<string, Pick<GetRankResponse, "entry" | "total">>,
  total: number,
): string[] {
  const problems: string[] = [];
  if (res.missing.length)
    problems.push(`GetRanks reported ${res.missing.length} players missing (${res.missing.slice(0, 3).join(", ")}), every one has a score`);
  if (res.entries.length !== asked.length - res.missing.length)
    problems.push(`GetRanks answered ${res.entries.length} entries and ${res.missing.length} missing for ${asked.length} players`);
  if (Number(res.total) !== total) problems.push(`GetRanks total ${res.total}, the board holds ${total}`);
  const seen = new Set<string>();
  res.entries.forEach((r, i) => {
    const e = r.entry ? plain(r.entry) : undefined;
    if (!e) return void problems.push(`GetRanks entry ${i} has no entry`);
    if (seen.has(e.playerId)) problems.push(`GetRanks lists ${e.playerId} twice`);
    seen.add(e.playerId);
    if (!asked.includes(e.playerId)) problems.push(`GetRanks lists ${e.playerId}, who was not asked`);
    if (r.rankAmong !== i + 1) problems.push(`GetRanks entry ${i} (${e.playerId}) has rank_among ${r.rankAmong}, not ${i + 1}`);
    const prev = res.entries[i - 1]?.entry;
    if (prev && Number(prev.rank) >= e.rank) problems.push(`GetRanks entries not best first: rank ${prev.rank} before ${e.rank}`);
    const one = single.get(e.playerId);
    const o = one?.entry ? plain(one.entry) : undefined;
    if (!sameEntry(e, o)) problems.push(`${e.playerId}: GetRanks ${show(e)}, GetRank ${show(o)}`);
    if (one && Number(one.total) !== total) problems.push(`${e.playerId}: GetRank total ${one.total}, the board holds ${total}`);
  });
  return problems;
}

const refText = (r: Pick<BoardRef, "board" | "period" | "window">) =>
  `${r.board}${r.period ? ` period ${r.period}` : ""}${r.window ? ` window ${r.window}` : ""}`;

/** A GetStanding answer of one player on `refs` against GetRank of the player on each (`single`, in the same order). */
export function standingProblems(
  refs: ReadonlyArray<Pick<BoardRef, "board" | "period" | "window">>,
  res: Pick<GetStandingResponse, "standings">,
  single: ReadonlyArray<Pick<GetRankResponse, "entry" | "total">>,
): string[] {
  const problems: string[] = [];
  if (res.standings.length !== refs.length)
    problems.push(`GetStanding answered ${res.standings.length} standings for ${refs.length} boards`);
  res.standings.forEach((s, i) => {
    const ref = refs[i];
    const one = single[i];
    if (!ref || !one) return;
    const where = refText(ref);
    if (!s.board || refText(s.board) !== where)
      problems.push(`standing ${i} is of ${s.board ? refText(s.board) : "no board"}, asked ${where}`);
    if (!s.found || !s.entry)
      return void problems.push(`${where}: not found, GetRank found ${show(one.entry ? plain(one.entry) : undefined)}`);
    const e = plain(s.entry);
    const o = one.entry ? plain(one.entry) : undefined;
    if (!sameEntry(e, o)) problems.push(`${where}: GetStanding ${show(e)}, GetRank ${show(o)}`);
    const total = Number(s.total);
    if (total !== Number(one.total)) problems.push(`${where}: GetStanding total ${total}, GetRank total ${one.total}`);
    if (!(total > 0) || e.rank < 1 || e.rank > total) return void problems.push(`${where}: rank ${e.rank} of ${total}`);
    if (Math.abs(s.topPercent - (100 * e.rank) / total) > 1e-9)
      problems.push(`${where}: top_percent ${s.topPercent}, 100 × ${e.rank} / ${total} = ${(100 * e.rank) / total}`);
    if (Math.abs(s.percentile - (100 * (total - e.rank)) / total) > 1e-9)
      problems.push(`${where}: percentile ${s.percentile}, 100 × (${total} − ${e.rank}) / ${total} = ${(100 * (total - e.rank)) / total}`);
  });
  return problems;
}

/**
 * A walk of the whole board page by page from the top (`add` each page in order, then `end`):
 * ranks 1..total once each, in order, no player twice, scores never rising, the same total on
 * every page, a next_cursor on every page but the last.
 */
export class PageWalk {
  private lastRank = 0;
  private lastScore = Infinity;
  private total: number | undefined;
  private readonly seen = new Set<string>();
  private ended = false;
  readonly problems: string[] = [];

  /** Ranks seen so far (the last page's last rank). */
  get depth(): number {
    return this.lastRank;
  }

  add(page: Pick<GetTopResponse, "entries" | "total" | "nextCursor">): void {
    const say = (p: string) => {
      if (this.problems.length < 20) this.problems.push(p);
    };
    if (this.ended) say(`a page after the one with no next_cursor (at rank ${this.lastRank})`);
    const total = Number(page.total);
    this.total ??= total;
    if (total !== this.total) say(`total ${total} at rank ${this.lastRank + 1}, ${this.total} before`);
    if (page.entries.length === 0) say(`an empty page after rank ${this.lastRank}`);
    for (const raw of page.entries) {
      const e = plain(raw);
      if (e.rank !== this.lastRank + 1) say(`rank ${e.rank} (${e.playerId}) after rank ${this.lastRank}`);
      if (e.score > this.lastScore) say(`score ${e.score} at rank ${e.rank} after ${this.lastScore}`);
      if (this.seen.has(e.playerId)) say(`${e.playerId} seen twice (again at rank ${e.rank})`);
      this.seen.add(e.playerId);
      this.lastRank = e.rank;
      this.lastScore = e.score;
    }
    if (page.nextCursor === "") {
      this.ended = true;
      if (this.lastRank !== total) say(`no next_cursor at rank ${this.lastRank} of ${total}`);
    } else if (this.lastRank >= total) say(`a next_cursor after the last rank ${this.lastRank}`);
  }

  /** The walk's problems once it is over (it must have reached the last rank, with an empty next_cursor there). */
  end(): string[] {
    if (!this.ended) this.problems.push(`the walk stopped at rank ${this.lastRank} before the end (${this.total})`);
    if (this.seen.size !== this.total) this.problems.push(`${this.seen.size} distinct players seen, total ${this.total}`);
    return this.problems;
  }
}

/** A page measured against the walk's entries at its ranks (`expected`, in order): the same entries, and cursors where they must be. */
export function pageProblems(
  what: string,
  page: Pick<GetTopResponse, "entries" | "total" | "nextCursor" | "previousCursor">,
  expected: readonly PlainEntry[],
  total: number,
): string[] {
  const problems: string[] = [];
  const got = page.entries.map(plain);
  if (got.length !== expected.length) problems.push(`${what}: ${got.length} entries, expected ${expected.length}`);
  got.forEach((e, i) => {
    if (!sameEntry(e, expected[i])) problems.push(`${what}: entry ${i} is ${show(e)}, the walk had ${show(expected[i])}`);
  });
  if (Number(page.total) !== total) problems.push(`${what}: total ${page.total}, expected ${total}`);
  const last = got.at(-1);
  const first = got[0];
  if (last && last.rank < total && page.nextCursor === "") problems.push(`${what}: no next_cursor at rank ${last.rank} of ${total}`);
  if (first && first.rank > 1 && page.previousCursor === "") problems.push(`${what}: no previous_cursor at rank ${first.rank}`);
  if (first && first.rank === 1 && page.previousCursor !== "") problems.push(`${what}: a previous_cursor on the page of rank 1`);
  return problems;
}
