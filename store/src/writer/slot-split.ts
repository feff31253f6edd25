/**
 * Which part of a shard's key belongs to which slot: what a move seeds from another shard's
 * snapshot (move-seed.ts) takes exactly the keys and members of the slots it gains.
 *
 * THE RULE. A record of the score log lands in the partition of the slot of its key (a player, a
 * team, a tournament's or league's board name): everything the apply script writes for it is
 * the state of that one partition. So, in a shard's Redis, each key or member is owned by one
 * slot, found from its name or its member as below, and the keys and members of slots S are
 * exactly what replaying S's partitions from offset 0 writes — with three exceptions, named:
 *   - a histogram's counts ("!hist") sum entries of every slot: not copied, counted again from
 *     the members seeded (move-seed.ts); its bounds ("!hbounds") are the board's, copied whole;
 *   - the moderation audit lines ("~audit") of actions on a player go with the player's slot;
 *     those of board-wide actions (a wipe, a trim, a ceiling) are written by every partition and
 *     carry no partition, and the shard already holds its own partitions' lines: not copied;
 *   - anything else, of a kind this file does not know, makes the split refuse (`unknown`):
 *     the caller then replays the log as before, never guesses.
 *
 * Where the owner is found (names without the key prefix; member formats in keys.ts and the
 * apply-*.lua that write them):
 *   dedup:<p>                            whole key, partition p
 *   count:records:<p>:<bucket> (hashes)  whole key, partition p
 *   board:~deleted                       "<board>#<gen>[@<period>]\n<partition>": that partition
 *   board:~hidden                        "<player>\n<board>"
 *   board:~audit                         a JSON line: its playerId (none: not copied)
 *   board:<key>                          a player, or on a board with columns "<order>\x1f<player>"
 *   …!hid, !att, !seen, !sum             the same (a team board's "!sum" holds teams, placed like players)
 *   …!meta, !team, !left, !cols, !hid!cols  "<player>\n…"
 *   …!floor                              "<partition>\n<sort key>\n<player>": that partition
 *   …@T!join, !place, !fill, !tier, !settled  whole key, the slot of its board's name
 *   …!m:<team>, !v:<team>                whole key, the slot of the team
 *   …!hbounds                            whole key, whoever holds the board
 *   …!hist                               not copied (above)
 *   …!arr, !dep                          a move's companions: never in a snapshot (snapshot-begin.lua)
 *
 * The drain of a move (move.ts, forgetPlayersOf) deletes what the shard keeps outside its board
 * keys for the slots it gave away by the same rule, so what one side takes the other gives up.
 *
 * COST. One look at the name per key; per member a murmur3 of its player.
 */
import { slotOf } from "@ladder/model/placement";
import { playerOfMember } from "@ladder/model/columns";

/** What to take of one key: all of it, none, the members `keep` says yes to, or a refusal naming the key. */
export type SplitPick = { all: true } | { none: string } | { keep(member: string): boolean } | { unknown: string };

const ALL: SplitPick = { all: true };
const none = (why: string): SplitPick => ({ none: why });

const beforeNewline = (m: string) => {
  const at = m.indexOf("\n");
  return at < 0 ? m : m.slice(0, at);
};
const afterLastNewline = (m: string) => m.slice(m.lastIndexOf("\n") + 1);

/** Suffixes whose members are "<player>\n…". */
const PLAYER_FIRST = ["!hid!cols", "!meta", "!team", "!left", "!cols"];
/** Suffixes whose members are players (or column members). */
const PLAYER_MEMBERS = ["!hid", "!att", "!seen", "!sum"];
/** Suffixes of keys owned whole by the slot of their board's name. */
const BOARD_OWNED = ["!join", "!place", "!fill", "!tier", "!settled"];

/** What of key `name` (without the key prefix) belongs to slots `gained` (of `numSlots`). */
export function slotPick(name: string, numSlots: number, gained: ReadonlySet<number>): SplitPick {
  const ofPlayer = (player: string) => gained.has(slotOf(player, numSlots));
  const ofPartition = (p: string) => gained.has(Number(p));
  if (name.startsWith("dedup:")) return ofPartition(name.slice("dedup:".length)) ? ALL : none("another partition's event ids");
  if (name.startsWith("count:records:")) {
    const p = name.slice("count:records:".length).split(":")[0]!;
    return /^\d+$/.test(p) ? (ofPartition(p) ? ALL : none("another partition's counts of records")) : { unknown: name };
  }
  if (!name.startsWith("board:")) return { unknown: name };
  const rest = name.slice("board:".length);
  if (rest.startsWith("~")) {
    if (rest === "~deleted") return { keep: (m) => ofPartition(afterLastNewline(m)) };
    if (rest === "~hidden") return { keep: (m) => ofPlayer(beforeNewline(m)) };
    if (rest === "~audit") return { keep: (m) => auditPlayerIn(m, ofPlayer) };
    return { unknown: name };
  }
  const bang = rest.indexOf("!");
  if (bang < 0) return { keep: (m) => ofPlayer(playerOfMember(m)) };
  const suffix = rest.slice(bang);
  if (suffix === "!hbounds") return ALL;
  if (suffix === "!hist") return none("a histogram's counts, counted again from the members seeded");
  if (suffix === "!floor") return { keep: (m) => ofPartition(beforeNewline(m)) };
  if (PLAYER_FIRST.includes(suffix)) return { keep: (m) => ofPlayer(beforeNewline(m)) };
  if (PLAYER_MEMBERS.includes(suffix)) return { keep: (m) => ofPlayer(playerOfMember(m)) };
  if (BOARD_OWNED.includes(suffix)) {
    const board = rest.slice(0, bang).replace(/#.*$/s, ""); // "<board>#<generation>@T!join"
    return ofPlayer(board) ? ALL : none("another slot's tournament or league");
  }
  if (suffix.startsWith("!m:") || suffix.startsWith("!v:")) return ofPlayer(suffix.slice(3)) ? ALL : none("another slot's team");
  return { unknown: name };
}

/** Whether an audit line names a player of the gained slots (board-wide actions name none: not copied, see above). */
function auditPlayerIn(line: string, ofPlayer: (p: string) => boolean): boolean {
  try {
    const playerId = (JSON.parse(line) as { playerId?: unknown }).playerId;
    return typeof playerId === "string" && playerId !== "" && ofPlayer(playerId);
  } catch {
    return false;
  }
}
