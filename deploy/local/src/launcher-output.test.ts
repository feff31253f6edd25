import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { LauncherOutput } from "./launcher-output.js";

function output(pretty: boolean) {
  const dataDir = mkdtempSync(join(tmpdir(), "ladder-out-"));
  const shown: string[] = [];
  const out = new LauncherOutput({ dataDir, terminal: { write: (t: string) => shown.push(t) }, terminalLevel: 30, pretty });
  const file = (name: string) => readFileSync(join(dataDir, "logs", `${name}.log`), "utf8");
  return { out, shown, file };
}
const rec = (o: Record<string, unknown>) => `${JSON.stringify({ time: 1, pid: 1, name: "local-cluster", ...o })}\n`;
const child = JSON.stringify({ level: 40, time: 2, pid: 9, name: "shard-node", msg: "Redis holds less" });

describe("deploy > launcher output", () => {
  it("appends a child's line to its own file as it printed it; the terminal gets its warnings, not its routine lines", () => {
    const { out, shown, file } = output(false);
    out.write(rec({ level: 20, service: "shard-2", line: '{"level":30,"msg":"ready"}', msg: "output" }));
    out.write(rec({ level: 40, service: "shard-2", line: child, msg: "output" }));
    out.write(rec({ level: 20, proc: "redis", port: 7001, line: "1:M * Ready to accept connections", msg: "output" }));
    expect(file("shard-2")).toBe(`{"level":30,"msg":"ready"}\n${child}\n`);
    expect(file("redis-7001")).toBe("1:M * Ready to accept connections\n");
    expect(shown).toEqual([`${JSON.stringify({ service: "shard-2", ...JSON.parse(child) })}\n`]); // its own record, not quoted inside another
  });

  it("keeps the launcher's own lines in launcher.log and shows them from its level", () => {
    const { out, shown, file } = output(false);
    out.write(rec({ level: 20, msg: "detail" }));
    out.write(rec({ level: 30, msg: "kafka ready" }));
    expect(
      file("launcher")
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l).msg),
    ).toEqual(["detail", "kafka ready"]);
    expect(shown.map((l) => JSON.parse(l).msg)).toEqual(["kafka ready"]);
  });

  it("shows a child's plain warning line as a record with its text as msg, or readable", () => {
    const json = output(false);
    json.out.write(rec({ level: 50, proc: "kafka", line: "[x] ERROR broken (kafka.server)", msg: "output" }));
    expect(JSON.parse(json.shown[0]!)).toEqual({ level: 50, time: 1, service: "kafka", msg: "[x] ERROR broken (kafka.server)" });
    const pretty = output(true);
    pretty.out.write(rec({ level: 40, service: "shard-2", line: child, msg: "output" }));
    expect(pretty.shown[0]).toMatch(/ WARN {2}shard-2 {4}Redis holds less\n$/);
  });
});

describe("deploy > launcher output > readable", () => {
  it("shows the launcher's own lines under its name", () => {
    const { out, shown } = output(true);
    out.write(rec({ level: 30, msg: "kafka ready", ms: 12 }));
    expect(shown[0]).toMatch(/ INFO {2}launcher {3}kafka ready ms=12\n$/);
  });
});
