import { describe, expect, it } from "vitest";
import { slotOf } from "@ladder/model/placement";
import { slotPick, type SplitPick } from "./slot-split.js";

const SLOTS = 8;
// players of slot 3 and of another slot, found by the placement's own hash
const players = Array.from({ length: 200 }, (_, i) => `player-${i}`);
const mine = players.find((p) => slotOf(p, SLOTS) === 3)!;
const other = players.find((p) => slotOf(p, SLOTS) !== 3)!;
const gained = new Set([3]);

function takes(pick: SplitPick, member: string): boolean | "all" | "none" | "unknown" {
  if ("all" in pick) return "all";
  if ("none" in pick) return "none";
  if ("unknown" in pick) return "unknown";
  return pick.keep(member);
}
const pick = (name: string) => slotPick(name, SLOTS, gained);

describe("slotPick", () => {
  it("takes a board's members of the gained slots, players and members of boards with columns", () => {
    expect(takes(pick("board:b#1"), mine)).toBe(true);
    expect(takes(pick("board:b#1"), other)).toBe(false);
    expect(takes(pick("board:b#1@2026-12-06"), `00ff00ff00ff00ff000000000001\x1f${mine}`)).toBe(true);
    expect(takes(pick("board:b#1@2026-12-06"), `00ff00ff00ff00ff000000000001\x1f${other}`)).toBe(false);
  });

  it("reads the player first in metadata, teams, companions of columns and hides", () => {
    for (const name of ["board:b#1!meta", "board:b#1!team", "board:b#1!left", "board:b#1!cols", "board:b#1!hid!cols", "board:~hidden"]) {
      expect(takes(pick(name), `${mine}\nrest`), name).toBe(true);
      expect(takes(pick(name), `${other}\nrest`), name).toBe(false);
    }
    for (const name of ["board:b#1!hid", "board:b#1!att", "board:b#1!seen", "board:b#1!sum"]) {
      expect(takes(pick(name), mine), name).toBe(true);
      expect(takes(pick(name), other), name).toBe(false);
    }
  });

  it("goes by partition for event ids, counts of records, deletion and close markers, and trim floors", () => {
    expect(takes(pick("count:records:3:0"), "x")).toBe("all");
    expect(takes(pick("count:records:3:1023"), "x")).toBe("all");
    expect(takes(pick("count:records:4:7"), "x")).toBe("none");
    expect(takes(pick("count:records:13:3"), "x")).toBe("none");
    expect(takes(pick("dedup:3"), "x")).toBe("all");
    expect(takes(pick("dedup:4"), "x")).toBe("none");
    expect(takes(pick("board:~deleted"), "b#1\n3")).toBe(true);
    expect(takes(pick("board:~deleted"), "b#1@2026-12-06\n13")).toBe(false);
    expect(takes(pick("board:b#1!floor"), `3\n12345\n${other}`)).toBe(true);
    expect(takes(pick("board:b#1!floor"), `4\n12345\n${mine}`)).toBe(false);
  });

  it("takes tournaments, leagues and teams whole by their name's slot", () => {
    const board = players.find((p) => slotOf(p, SLOTS) === 3)!;
    expect(takes(pick(`board:${board}#2@T!join`), "x")).toBe("all");
    expect(takes(pick(`board:${other}#2@T!join`), "x")).toBe("none");
    expect(takes(pick(`board:${board}#2!place`), "x")).toBe("all");
    expect(takes(pick(`board:t#1!m:${mine}`), "x")).toBe("all");
    expect(takes(pick(`board:t#1!v:${other}`), "x")).toBe("none");
  });

  it("copies bounds, leaves counts, and keeps audit lines of the gained players only", () => {
    expect(takes(pick("board:b#1!hbounds"), "0")).toBe("all");
    expect(takes(pick("board:b#1!hist"), "0")).toBe("none");
    expect(takes(pick("board:~audit"), JSON.stringify({ offset: "4", playerId: mine }))).toBe(true);
    expect(takes(pick("board:~audit"), JSON.stringify({ offset: "4", playerId: other }))).toBe(false);
    expect(takes(pick("board:~audit"), JSON.stringify({ offset: "4", playerId: "" }))).toBe(false);
    expect(takes(pick("board:~audit"), "not json")).toBe(false);
  });

  it("refuses what it does not know", () => {
    for (const name of [
      "board:b#1!arr",
      "board:b#1!dep",
      "board:b#1!new",
      "board:~other",
      "offsets",
      "heartbeat",
      "count:records",
      "count:records:x:1",
    ])
      expect(takes(pick(name), "x"), name).toBe("unknown");
  });
});
