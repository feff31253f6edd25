import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
  ADMIN_SCRIPT_COMMANDS,
  aclRules,
  passwordHash,
  READ_SCRIPT_COMMANDS,
  redisAclLines,
  sentinelAclLines,
  WRITE_SCRIPT_COMMANDS,
  READER_WRITABLE_KEYS,
} from "@ladder/platform/redis-acl";
import { keyLayout } from "./keys.js";

const LUA = new URL("./lua/", import.meta.url);
const files = (dir: URL, under = ""): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((d) =>
    d.isDirectory() ? files(new URL(`${d.name}/`, dir), `${under}${d.name}/`) : d.name.endsWith(".lua") ? [`${under}${d.name}`] : [],
  );
/** The commands a script calls (redis.call / redis.pcall with a literal name), lower case. */
const calls = (name: string): string[] => [
  ...new Set(
    [...readFileSync(new URL(name, LUA), "utf8").matchAll(/redis\.p?call\(\s*['"]([A-Za-z_]+)['"]/g)].map((m) => m[1]!.toLowerCase()),
  ),
];
const READ_FILES = ["includes/sorted-sets.lua", "includes/read-lists.lua", "includes/read-histograms.lua"];
const isRead = (f: string) => f.startsWith("read-") || READ_FILES.includes(f);
const allowed = (rules: readonly string[]) => rules.filter((r) => r.startsWith("+")).map((r) => r.slice(1));
const PW = "a-password-of-24-chars!!";

describe("store > redis acl > scripts", () => {
  it("finds the commands of every script (no call by a computed name)", () => {
    for (const f of files(LUA)) {
      const text = readFileSync(new URL(f, LUA), "utf8");
      expect(text, f).not.toMatch(/redis\.p?call\(\s*[^'"\s]/);
    }
    expect(calls("read-top.lua").length + calls("includes/sorted-sets.lua").length).toBeGreaterThan(0);
  });

  it("lets the reader run every command of the read scripts, through EVALSHA_RO / EVAL_RO only", () => {
    const reader = allowed(aclRules("reader", "p:"));
    for (const f of files(LUA).filter(isRead)) for (const c of calls(f)) expect(READ_SCRIPT_COMMANDS, `${f}: ${c}`).toContain(c);
    expect(reader).toEqual(expect.arrayContaining([...READ_SCRIPT_COMMANDS, "evalsha_ro", "eval_ro"]));
    expect(reader).not.toContain("eval");
    expect(reader).not.toContain("evalsha");
  });

  it("lets the writer run every command of the other scripts, and the admin rebuild-swap.lua's too", () => {
    const writer = allowed(aclRules("writer", "p:"));
    const admin = allowed(aclRules("admin", "p:"));
    for (const f of files(LUA).filter((f) => !isRead(f))) {
      const own = f === "rebuild-swap.lua" ? [...WRITE_SCRIPT_COMMANDS, ...ADMIN_SCRIPT_COMMANDS] : WRITE_SCRIPT_COMMANDS;
      for (const c of calls(f)) expect(own, `${f}: ${c}`).toContain(c);
    }
    expect(writer).toEqual(expect.arrayContaining([...WRITE_SCRIPT_COMMANDS, "eval", "evalsha"]));
    expect(admin).toEqual(expect.arrayContaining([...writer, "swapdb"]));
    expect(writer).not.toContain("swapdb");
  });
});

describe("store > redis acl > rules", () => {
  it("allows nothing but what is listed, on the prefix's keys only", () => {
    for (const role of ["writer", "admin", "reader", "replication", "sentinel"] as const) {
      const rules = aclRules(role, "lb:");
      expect(rules.indexOf("-@all"), role).toBeLessThan(rules.findIndex((r) => r.startsWith("+")));
      expect(
        rules.filter((r) => /^(%[RW]+)?~/.test(r)).every((r) => r.includes("lb:")),
        role,
      ).toBe(true);
      for (const bad of [
        "flushall",
        "flushdb",
        "config",
        "config|set",
        "shutdown",
        "acl",
        "debug",
        "module",
        "@all",
        "@admin",
        "@dangerous",
      ])
        expect(allowed(rules), `${role}: ${bad}`).not.toContain(bad);
    }
  });

  it("gives the reader read access to the keys and write access to the change feed's flag and generation only", () => {
    const rules = aclRules("reader", "lb:");
    expect(rules.filter((r) => r.includes("~"))).toEqual(["%R~lb:*", "~lb:changes:on", "~lb:changes:gen"]);
    const keys = keyLayout("lb:");
    expect(READER_WRITABLE_KEYS.map((k) => `lb:${k}`)).toEqual([keys.changesOn, keys.changesGen]);
    const writes = ["zadd", "zrem", "del", "unlink", "hset", "xadd", "rename", "swapdb", "select", "expire", "rpush"];
    for (const c of writes) expect(allowed(rules), c).not.toContain(c);
  });

  it("gives replication and Sentinel no key at all", () => {
    expect(aclRules("replication", "lb:").filter((r) => r.includes("~"))).toEqual([]);
    expect(allowed(aclRules("replication", "lb:"))).toEqual(["ping", "psync", "replconf"]);
    expect(allowed(aclRules("sentinel", "lb:"))).toEqual(expect.arrayContaining(["replicaof", "config|rewrite", "publish", "subscribe"]));
  });
});

describe("store > redis acl > files", () => {
  it("turns the default user off and stores only each password's SHA-256", () => {
    const lines = redisAclLines([{ name: "ladder-reader", role: "reader", password: PW }], "lb:");
    expect(lines[0]).toMatch(/^user default off /);
    expect(lines[1]).toMatch(new RegExp(`^user ladder-reader on resetpass ${passwordHash(PW)} resetkeys %R~lb:\\*`));
    expect(passwordHash(PW)).toMatch(/^#[0-9a-f]{64}$/);
    expect(lines.join("\n")).not.toContain(PW);
    const sentinel = sentinelAclLines({ sentinel: { name: "s", password: PW }, client: { name: "c", password: PW } });
    expect(sentinel[0]).toMatch(/^user default off /);
    expect(sentinel.join("\n")).not.toContain(PW);
    expect(sentinel[2]).toContain("+sentinel|get-master-addr-by-name");
  });

  it("refuses a short password or a name Redis would split, naming the user and the limit", () => {
    expect(() => redisAclLines([{ name: "w", role: "writer", password: "short" }], "")).toThrow(
      "Redis user w: a password of at least 16 characters, not 5",
    );
    expect(() => redisAclLines([{ name: "a b", role: "writer", password: PW }], "")).toThrow('Redis user name "a b": 1-64 of');
  });
});
