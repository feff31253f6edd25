import { create } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import { WriteQuotaSchema } from "@ladder/proto/leaderboard/v1/admin_pb";
import { limitOf, quotaOfDefinition, quotaProblem } from "./write-quota.js";

describe("model > write quota", () => {
  it("takes a burst of 0 as the rate and a rate of 0 as no limit", () => {
    expect(limitOf(5, 0)).toEqual({ perSecond: 5, burst: 5 });
    expect(limitOf(5, 20)).toEqual({ perSecond: 5, burst: 20 });
    expect(limitOf(0, 0)).toBeUndefined();
    expect(quotaOfDefinition(create(WriteQuotaSchema, {}))).toBeUndefined();
    expect(quotaOfDefinition(create(WriteQuotaSchema, { tokenPerSecond: 3 }))).toEqual({ token: { perSecond: 3, burst: 3 } });
  });

  it("names the field and the limit of a bad quota", () => {
    expect(quotaProblem(create(WriteQuotaSchema, { playerPerSecond: 1, playerBurst: 1_000_001 }))).toBe(
      "quota.player_burst 1000001 is above 1000000 (MAX_QUOTA)",
    );
    expect(quotaProblem(create(WriteQuotaSchema, { tokenBurst: 4 }))).toMatch(/^quota.token_burst 4 needs quota.token_per_second above 0/);
    expect(quotaProblem(create(WriteQuotaSchema, { playerPerSecond: 10, tokenPerSecond: 100, tokenBurst: 500 }))).toBeUndefined();
    expect(quotaProblem(undefined)).toBeUndefined();
  });
});
