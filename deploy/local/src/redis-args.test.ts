import { describe, expect, it } from "vitest";
import { redisArgs } from "./redis-server.js";

describe("deploy > redis args", () => {
  it("binds 127.0.0.1, never snapshots, never evicts, and keeps an AOF only when persisting", () => {
    const volatile = redisArgs({ port: 7001, dataDir: "/d", persist: false });
    expect(volatile.join(" ")).toBe(
      "--port 7001 --bind 127.0.0.1 --dir /d --daemonize no --save  --appendonly no --maxmemory-policy noeviction");
    const durable = redisArgs({ port: 7001, dataDir: "/d", persist: true });
    expect(durable).toEqual(expect.arrayContaining(["--appendonly", "yes", "--appendfsync", "everysec"]));
    expect(durable[durable.indexOf("--save") + 1]).toBe("");
  });
});
