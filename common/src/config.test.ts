import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "./config.js";

describe("common > config", () => {
  it("starts the local cluster on embedded defaults", () => {
    const c = loadConfig({});
    expect(c.kafkaBrokers).toEqual(["127.0.0.1:9092"]);
    expect(c.shards.map((s) => s.id)).toEqual(["shard-0", "shard-1", "shard-2"]);
    expect(c.routerListen).toBe("127.0.0.1:50051");
    expect(c.ingestListen).toBe("127.0.0.1:50052");
    expect(c.boards.forBoard("anything").prefix).toBe("");
    expect(Object.isFrozen(c)).toBe(true);
  });

  it("reports every problem at once", () => {
    try {
      loadConfig({ LADDER_SLOTS: "0", LADDER_SHARDS: "a=nope", LADDER_SHARD_ID: "zz", LADDER_BOARDS: "{" });
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      const problems = (err as ConfigError).problems.join("\n");
      expect(problems).toMatch(/LADDER_SLOTS/);
      expect(problems).toMatch(/LADDER_SHARDS/);
      expect(problems).toMatch(/LADDER_SHARD_ID/);
      expect(problems).toMatch(/LADDER_BOARDS/);
    }
  });

  it("reads board specs and keeps a default", () => {
    const c = loadConfig({ LADDER_BOARDS: JSON.stringify([{ prefix: "daily:", maxPoints: 1000, resolutionMs: 1, ttlSeconds: 172800 }]) });
    expect(c.boards.forBoard("daily:2026-11-30")).toMatchObject({ maxPoints: 1000, resolutionMs: 1, ttlSeconds: 172800 });
    expect(c.boards.forBoard("global").maxPoints).toBe(2 ** 31 - 1);
  });

  it("reads tokens with roles and rejects weak or malformed ones", () => {
    const c = loadConfig({ LADDER_TOKENS: JSON.stringify([{ name: "gs", token: "x".repeat(32), roles: ["write"] }]), LADDER_READS: "token" });
    expect(c.tokens).toEqual([{ name: "gs", token: "x".repeat(32), roles: ["write"] }]);
    expect(c.readsOpen).toBe(false);
    expect(() => loadConfig({ LADDER_TOKENS: JSON.stringify([{ name: "gs", token: "short", roles: ["write"] }]) })).toThrow(/LADDER_TOKENS\[0\]/);
    expect(() => loadConfig({ LADDER_TOKENS: JSON.stringify([{ name: "gs", token: "x".repeat(32), roles: ["root"] }]) })).toThrow(/roles/);
  });
});
