import { describe, expect, it } from "vitest";
import { loadConfig } from "@ladder/platform/config";
import { parseSeedOptions } from "./options.js";

const config = loadConfig({ LADDER_CREDENTIALS_FILE: "/nonexistent/credentials.json" });
const now = new Date("2026-11-30T15:30:00Z");

describe("loadtest > seed options", () => {
  it("defaults to the Kafka path, waiting for the shards, times ending at midnight UTC", () => {
    const o = parseSeedOptions(["--players", "1M"], config, now);
    expect(o).toMatchObject({
      players: 1e6,
      first: 0,
      board: "loadtest",
      via: "kafka",
      seed: 1,
      batch: 20_000,
      parallel: 2,
      wait: true,
      maxBehind: 150_000, // half of LADDER_MAX_LAG (100,000) per shard, 3 shards
      untilMs: Date.UTC(2026, 10, 30),
      name: "seed-kafka-2026-11-30T15-30-00-000Z",
    });
    expect(o.shape).toEqual({ medianPoints: 1000, sigma: 1.5, windowMs: 720 * 3600_000 });
  });

  it("takes Redis defaults and flags", () => {
    const o = parseSeedOptions(
      ["--players", "10M", "--via", "redis", "--seed", "7", "--until", "2026-06-01T00:00:00Z", "--no-wait"],
      config,
      now,
    );
    expect(o).toMatchObject({ players: 1e7, via: "redis", batch: 1000, parallel: 8, seed: 7, wait: false, untilMs: Date.UTC(2026, 5, 1) });
  });

  it("paces the Kafka path to half of LADDER_MAX_LAG per shard, with batches of at most half of that", () => {
    const small = loadConfig({ LADDER_CREDENTIALS_FILE: "/nonexistent/credentials.json", LADDER_MAX_LAG: "10000" });
    expect(parseSeedOptions(["--players", "1M"], small, now)).toMatchObject({ maxBehind: 15_000, batch: 7_500 });
    expect(parseSeedOptions(["--players", "1M", "--max-behind", "0"], small, now)).toMatchObject({ maxBehind: 0, batch: 20_000 });
    // per shard of the cluster's placement, which may name more shards than LADDER_SHARDS
    expect(parseSeedOptions(["--players", "1M"], small, now, 4)).toMatchObject({ maxBehind: 20_000, batch: 10_000 });
    expect(parseSeedOptions(["--players", "1M", "--max-behind", "1M", "--batch", "100k"], config, now)).toMatchObject({
      maxBehind: 1e6,
      batch: 1e5,
    });
    expect(() => parseSeedOptions(["--players", "1M", "--max-behind", "30000", "--batch", "20000"], config, now)).toThrow(
      "--batch: 20000 is more than half of --max-behind (30000): give --batch 15000 or less, or --max-behind 0",
    );
  });

  it("lists every problem", () => {
    expect(() => parseSeedOptions(["--via", "s3", "--board", "a b", "--until", "2020-01-01"], config, now)).toThrow(
      /--players is required[\s\S]*--via[\s\S]*--board[\s\S]*outside board/,
    );
  });
});
