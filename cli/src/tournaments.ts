/**
 * `tournaments create|join|list|get` (docs/tournaments.md): one line per tournament, and the
 * player's standing under it.
 */
import type { ServiceSet } from "@ladder/client";
import { PeriodKind, SortOrder } from "@ladder/proto/leaderboard/v1/common_pb";
import { TournamentState, type TournamentSummary } from "@ladder/proto/leaderboard/v1/tournament_pb";
import { durationMs, rewardRange } from "./boards.js";
import { OPERATION } from "./enums.js";
import type { Values } from "./flags.js";
import type { TOURNAMENTS_CREATE, TOURNAMENTS_GET, TOURNAMENTS_JOIN, TOURNAMENTS_LIST } from "./tables/tournaments.js";

export async function tournamentsCreate(c: ServiceSet, o: Values<typeof TOURNAMENTS_CREATE.flags>): Promise<string> {
  const startMs = o.start === "now" ? Date.now() : /^\d+$/.test(o.start) ? Number(o.start) : Date.parse(o.start);
  const res = await c.admin.createBoard({
    board: {
      name: o.board,
      defaultOp: OPERATION[o["default-op"]],
      rules: {
        order: o.order === "lower" ? SortOrder.LOWER_IS_BETTER : SortOrder.HIGHER_IS_BETTER,
        period: PeriodKind.TOURNAMENT,
        tournament: {
          category: o.category,
          startMs: BigInt(startMs),
          durationMs: BigInt(durationMs(o.duration)),
          joinRequired: o.join === "yes",
          maxSize: o["max-size"],
          maxAttempts: o["max-attempts"],
        },
        close: { graceMs: BigInt(durationMs(o["close-grace"])), topK: o["close-top"], rewards: (o.rewards ?? []).map(rewardRange) },
      },
    },
  });
  return `defined ${tournamentLine({ board: res.board!, memberCount: 0n, state: TournamentState.UNSPECIFIED } as TournamentSummary)}`;
}

export async function tournamentsJoin(c: ServiceSet, o: Values<typeof TOURNAMENTS_JOIN.flags>): Promise<string> {
  const res = await c.ingest.joinTournament({ board: o.board, playerId: o.player });
  return `${o.player} ${res.alreadyMember ? "was already" : "is now"} a member of ${o.board} (${res.memberCount} members; consistency token ${res.consistencyToken})`;
}

export async function tournamentsList(c: ServiceSet, o: Values<typeof TOURNAMENTS_LIST.flags>): Promise<string> {
  const res = await c.leaderboard.listTournaments({ category: o.category ?? "", pageSize: o["page-size"], pageToken: o.page ?? "" });
  const lines = res.tournaments.map(tournamentLine);
  if (res.nextPageToken) lines.push(`next page: --page ${res.nextPageToken}`);
  return lines.length ? lines.join("\n") : `no open tournament${o.category ? ` in ${o.category}` : ""}`;
}

export async function tournamentsGet(c: ServiceSet, o: Values<typeof TOURNAMENTS_GET.flags>): Promise<string> {
  const res = await c.leaderboard.getTournament({ board: o.board, playerId: o.player ?? "" });
  const head = tournamentLine(res.tournament!);
  if (!o.player) return `${head}; ${res.total} entries`;
  const t = res.tournament!.board!.rules!.tournament!;
  const attempts = `${res.attemptsUsed} attempt${res.attemptsUsed === 1 ? "" : "s"} used${t.maxAttempts ? `, ${res.attemptsLeft} left` : ""}`;
  const standing = res.entry ? `rank ${res.entry.rank} of ${res.total} with ${res.entry.score}` : `no entry yet (${res.total} entries)`;
  return `${head}\n${o.player}: ${res.member ? "member" : "not a member"}, ${attempts}, ${standing}`;
}

/** "cup-1 [weekend]: ACTIVE, 2026-12-05T10:00:00.000Z to ..., 37/100 members, 3 attempts each". */
function tournamentLine(s: TournamentSummary): string {
  const b = s.board!;
  const t = b.rules!.tournament!;
  const iso = (ms: bigint) => new Date(Number(ms)).toISOString();
  const state = s.state === TournamentState.UNSPECIFIED ? "" : `${TournamentState[s.state]}, `;
  const size = t.joinRequired ? `${s.memberCount}/${t.maxSize || "unlimited"} members` : "no joins needed";
  const rewards = b.rules!.close?.rewards.length ? `, ${b.rules!.close.rewards.length} reward ranges` : "";
  return `${b.name} [${t.category}]: ${state}${iso(t.startMs)} to ${iso(t.endMs)}, ${size}, ${t.maxAttempts || "unlimited"} attempts each${rewards}, generation ${b.rules!.generation}`;
}
