import { create } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import { BoardDefinitionSchema, WriteQuotaSchema } from "@ladder/proto/leaderboard/v1/admin_pb";
import { ScoreUpdateSchema } from "@ladder/proto/leaderboard/v1/ingest_pb";
import { BoardCatalog, normalizeDefinition } from "@ladder/model/board-definitions";
import { Code, LadderError } from "@ladder/model/errors";
import { Registry } from "@ladder/platform/metrics";
import { ingestMetrics } from "./metrics.js";
import { WriteQuotas } from "./write-quotas.js";

const update = (playerId: string, board = "open", alsoBoards: string[] = []) =>
  create(ScoreUpdateSchema, { playerId, board, alsoBoards, value: 1n });

function catalog(): BoardCatalog {
  const c = new BoardCatalog(undefined);
  for (const [name, quota] of [
    ["open", undefined],
    ["tight", create(WriteQuotaSchema, { playerPerSecond: 1, playerBurst: 2, tokenPerSecond: 10 })],
  ] as const) {
    const { definition } = normalizeDefinition(create(BoardDefinitionSchema, { name, ...(quota ? { quota } : {}) }), 1_000);
    c.apply(name, definition!);
  }
  return c;
}

function refusal(f: () => void): LadderError {
  try {
    f();
  } catch (err) {
    if (err instanceof LadderError) return err;
    throw err;
  }
  throw new Error("admitted");
}

describe("ingest > write quotas", () => {
  it("counts each update for its player and its token on the cluster's quota", () => {
    let t = 0;
    const q = new WriteQuotas({ player: { perSecond: 1, burst: 3 }, token: { perSecond: 10, burst: 5 } }, () => t);
    const boards = catalog();
    q.admit([update("a"), update("a"), update("b")], "game", boards);
    const e = refusal(() => q.admit([update("a"), update("a")], "game", boards));
    expect(e.code).toBe(Code.RESOURCE_EXHAUSTED);
    expect(e.retryAfterMs).toBe(1000);
    expect(e.message).toContain('player "a"');
    q.admit([update("c"), update("d")], "game", boards); // the refused batch took nothing: token "game" has 2 left
    const token = refusal(() => q.admit([update("e")], "game", boards));
    expect(token.message).toContain('token "game"');
    expect(token.retryAfterMs).toBe(100);
    q.admit([update("e")], "other", boards); // another token is served
    t += 100;
    q.admit([update("e")], "game", boards);
  });

  it("counts each refused batch in ladder_ingest_refused_calls_total{reason=quota}", async () => {
    const registry = new Registry();
    const q = new WriteQuotas({ player: { perSecond: 1, burst: 1 } }, () => 0, ingestMetrics(registry));
    q.admit([update("a")], "game", catalog());
    refusal(() => q.admit([update("a")], "game", catalog()));
    refusal(() => q.admit([update("a")], "game", catalog()));
    const metric = (await registry.getMetricsAsJSON()).find((m) => m.name === "ladder_ingest_refused_calls_total")!;
    expect(metric.values.find((v) => v.labels.reason === "quota")?.value).toBe(2);
  });

  it("adds a board's quota for the updates that write that board", () => {
    const q = new WriteQuotas({});
    const boards = catalog();
    q.admit([update("a", "tight"), update("a", "open", ["tight"])], "game", boards);
    const e = refusal(() => q.admit([update("a", "tight")], "game", boards));
    expect(e.code).toBe(Code.RESOURCE_EXHAUSTED);
    expect(e.message).toContain('player "a" on board "tight"');
    q.admit([update("a", "open"), update("a", "open"), update("a", "open")], "game", boards); // no quota there
  });

  it("refuses a batch that could never fit with INVALID_ARGUMENT naming the burst", () => {
    const q = new WriteQuotas({ player: { perSecond: 1, burst: 2 } });
    const e = refusal(() => q.admit([update("a"), update("a"), update("a")], "game", catalog()));
    expect(e.code).toBe(Code.INVALID_ARGUMENT);
    expect(e.message).toContain("burst 2 (LADDER_QUOTA_PLAYER_BURST)");
  });
});
