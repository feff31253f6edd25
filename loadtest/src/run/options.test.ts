import { describe, expect, it } from "vitest";
import { loadConfig } from "@ladder/platform/config";
import { parseLoadtestOptions } from "./options.js";

const config = loadConfig({
  LADDER_ROUTER_LISTEN: "127.0.0.1:51051",
  LADDER_INGEST_LISTEN: "127.0.0.1:51052",
  LADDER_CREDENTIALS_FILE: "/nonexistent/credentials.json",
});
const at = new Date("2026-11-30T10:00:00.000Z");

describe("loadtest > options", () => {
  it("defaults to an open loop of 200 requests/s for 30 s against the configured services", () => {
    const o = parseLoadtestOptions([], config, at);
    expect(o).toMatchObject({
      router: "127.0.0.1:51051",
      ingest: "127.0.0.1:51052",
      board: "loadtest",
      players: 1e6,
      batch: 100,
      writeOp: "set",
      pacing: { kind: "open", ratePerSec: 200, maxInFlight: 1000 },
      durationMs: 30_000,
      warmupMs: 0,
      zipf: 1,
      seed: 1,
      token: undefined,
      mix: { write: 50, top: 10, rank: 30, around: 10 },
      name: "loadtest-2026-11-30T10-00-00-000Z",
      lag: { everyMs: 100, pollMs: 10, timeoutMs: 10_000, maxProbes: 20 },
    });
  });

  it("takes a closed loop, flags and a token", () => {
    const o = parseLoadtestOptions(
      [
        "--concurrency",
        "64",
        "--warmup",
        "5s",
        "--players",
        "1e9",
        "--mix",
        "rank=1",
        "--duration",
        "2m",
        "--token",
        "abc.def",
        "--lag-every",
        "0",
        "--router",
        "127.0.0.1:9",
      ],
      config,
    );
    expect(o.pacing).toEqual({ kind: "closed", concurrency: 64 });
    expect(o).toMatchObject({ players: 1e9, durationMs: 120_000, token: "abc.def", router: "127.0.0.1:9", mix: { write: 0, rank: 1 } });
    expect(o.lag.everyMs).toBe(0);
    expect(o.warmupMs).toBe(5000);
  });

  it("lists every problem at once", () => {
    let message = "";
    try {
      parseLoadtestOptions(
        [
          "--rate",
          "10",
          "--concurrency",
          "5",
          "--batch",
          "5000",
          "--board",
          "bad board",
          "--router",
          "10.1.2.3:50051",
          "--write-op",
          "max",
        ],
        config,
      );
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toMatch(/exclude each other/);
    expect(message).toMatch(/--batch/);
    expect(message).toMatch(/--board/);
    expect(message).toMatch(/loopback/);
    expect(message).toMatch(/--write-op/);
    expect(message).toMatch(/usage:/);
  });

  it("refuses unknown flags", () => {
    expect(() => parseLoadtestOptions(["--nope", "1"], config)).toThrow();
  });
});
