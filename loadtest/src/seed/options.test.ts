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

  it("lists every problem", () => {
    expect(() => parseSeedOptions(["--via", "s3", "--board", "a b", "--until", "2020-01-01"], config, now)).toThrow(
      /--players is required[\s\S]*--via[\s\S]*--board[\s\S]*outside board/,
    );
  });
});
