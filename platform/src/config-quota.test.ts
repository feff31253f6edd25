import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "./config.js";

describe("platform > config > write quotas", () => {
  it("limits nothing by default, reads rates and bursts (a burst of 0 is the rate)", () => {
    expect(loadConfig({}).ingestQuota).toEqual({});
    const c = loadConfig({ LADDER_QUOTA_PLAYER_RATE: "5", LADDER_QUOTA_TOKEN_RATE: "100", LADDER_QUOTA_TOKEN_BURST: "400" });
    expect(c.ingestQuota).toEqual({ player: { perSecond: 5, burst: 5 }, token: { perSecond: 100, burst: 400 } });
    expect(Object.isFrozen(c.ingestQuota)).toBe(true);
  });

  it("refuses a burst without its rate, naming both variables", () => {
    try {
      loadConfig({ LADDER_QUOTA_PLAYER_BURST: "10" });
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      expect((err as ConfigError).problems).toEqual([
        "LADDER_QUOTA_PLAYER_BURST: needs LADDER_QUOTA_PLAYER_RATE above 0 (0 means no limit)",
      ]);
    }
  });
});
