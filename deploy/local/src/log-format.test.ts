import { describe, expect, it } from "vitest";
import { formatLine, levelNumber } from "./log-format.js";

const at = new Date(2026, 11, 3, 18, 34, 1, 123).getTime(); // local time, as shown

describe("deploy > log format", () => {
  it("shows a pino line as time, level, source, message and its other fields", () => {
    const line = JSON.stringify({
      level: 40,
      time: at,
      pid: 7,
      name: "shard-node",
      shardId: "shard-2",
      msg: "Redis holds less than was applied",
      applied: 120,
      note: "two words",
      parts: [1, 2],
    });
    expect(formatLine(line, { source: "shard-2" })).toBe(
      '18:34:01.123 WARN  shard-2 Redis holds less than was applied shardId=shard-2 applied=120 note="two words" parts=[1,2]',
    );
  });

  it("takes the source from the record's service, then its name, and pads it", () => {
    expect(formatLine(JSON.stringify({ level: 30, time: at, service: "router", msg: "up" }), { sourceWidth: 8 })).toBe(
      "18:34:01.123 INFO  router   up",
    );
    expect(formatLine(JSON.stringify({ level: 50, time: at, name: "local-cluster", msg: "x" }))).toBe("18:34:01.123 ERROR local-cluster x");
  });

  it("shows an error's message inline and its stack's frames below, indented", () => {
    const err = { type: "Error", message: "boom", stack: "Error: boom\n    at f (a.ts:1:2)\n    at g (b.ts:3:4)" };
    expect(formatLine(JSON.stringify({ level: 50, time: at, msg: "failed", err }), { source: "ingest" }).split("\n")).toEqual([
      "18:34:01.123 ERROR ingest failed err=boom",
      "    at f (a.ts:1:2)",
      "    at g (b.ts:3:4)",
    ]);
  });

  it("shows a line that is not a pino record as it is, after its source", () => {
    expect(formatLine("[2026-12-03 18:34:01,200] ERROR oops (kafka.server)", { source: "kafka" })).toBe(
      `${" ".repeat(18)} kafka  [2026-12-03 18:34:01,200] ERROR oops (kafka.server)`,
    );
    expect(formatLine("{not json", { source: "x" })).toMatch(/ x {2}\{not json$/);
  });

  it("colours the level only when asked", () => {
    expect(formatLine(JSON.stringify({ level: 50, time: at, msg: "m" }), { source: "s", color: true })).toContain("\x1b[31mERROR\x1b[0m");
  });

  it("maps level names to pino's numbers, silent above all", () => {
    expect([levelNumber("debug"), levelNumber("info"), levelNumber("warn"), levelNumber("silent")]).toEqual([
      20,
      30,
      40,
      Number.POSITIVE_INFINITY,
    ]);
  });
});
