import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { CONFIG_DOC, configTables, withConfigTables } from "./config-table.js";

describe("scripts > config-table", () => {
  it("docs/configuration.md's tables are the ones the schemas generate (npm run config-table rewrites them)", () => {
    const doc = readFileSync(CONFIG_DOC, "utf8");
    expect(doc, "docs/configuration.md's configuration tables are stale: run npm run config-table").toBe(withConfigTables(doc));
  });

  it("lists every variable of both schemas once, with a default and a meaning", () => {
    const { services, launcher } = configTables();
    for (const table of [services!, launcher!]) {
      const rows = table.split("\n").slice(2);
      const names = rows.map((r) => /^\| `([A-Z0-9_]+)` \|/.exec(r)?.[1]);
      expect(names.every(Boolean)).toBe(true);
      expect(new Set(names).size).toBe(names.length);
      for (const row of rows)
        expect(
          row
            .split(/(?<!\\)\|/)
            .map((c) => c.trim())
            .filter(Boolean),
        ).toHaveLength(3);
    }
    expect(services).toContain("| `LADDER_SLOTS` | `64` |");
    expect(launcher).toContain("| `LADDER_REDIS_BASE_PORT` | `7001` |");
  });

  it("replaces only what is between the markers, and refuses a file without them", () => {
    const text = "a\n<!-- config-table:x:start -->\nold\n<!-- config-table:x:end -->\nb\n";
    expect(withConfigTables(text, { x: "| new |" })).toBe("a\n<!-- config-table:x:start -->\n| new |\n<!-- config-table:x:end -->\nb\n");
    expect(() => withConfigTables("no markers", { x: "t" })).toThrow(/config-table:x:start/);
  });
});
