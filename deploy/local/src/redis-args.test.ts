import { describe, expect, it } from "vitest";
import { redisArgs } from "./redis-server.js";
import { sentinelConf } from "./sentinel.js";

describe("deploy > redis args", () => {
  it("binds 127.0.0.1, never snapshots, never evicts, and keeps an AOF only when persisting", () => {
    const volatile = redisArgs({ port: 7001, dataDir: "/d", persist: false });
    expect(volatile.join(" ")).toBe(
      "--port 7001 --bind 127.0.0.1 --dir /d --daemonize no --save  --appendonly no --maxmemory-policy noeviction",
    );
    const durable = redisArgs({ port: 7001, dataDir: "/d", persist: true });
    expect(durable).toEqual(expect.arrayContaining(["--appendonly", "yes", "--appendfsync", "everysec"]));
    expect(durable[durable.indexOf("--save") + 1]).toBe("");
    // huge pages: Redis must not turn them off for itself (the allocator is told by HUGE_PAGES_ENV)
    expect(redisArgs({ port: 7001, dataDir: "/d", persist: false, hugePages: true }).join(" ")).toContain("--disable-thp no");
    expect(volatile).not.toContain("--disable-thp");
  });
});

describe("deploy > replica layout args", () => {
  it("starts a replica of its primary, and syncs replicas at once", () => {
    const args = redisArgs({ port: 7101, dataDir: "/d", persist: false, replicaOf: "127.0.0.1:7001" }).join(" ");
    expect(args).toContain("--replicaof 127.0.0.1 7001");
    expect(args).toContain("--repl-diskless-sync-delay 0");
    expect(redisArgs({ port: 7001, dataDir: "/d", persist: false, replicated: true }).join(" ")).toContain("--repl-diskless-sync-delay 0");
    expect(
      sentinelConf({
        port: 7201,
        dataDir: "/s",
        primaries: [{ name: "m0", address: "127.0.0.1:7001" }],
        quorum: 2,
        downAfterMs: 1000,
        failoverTimeoutMs: 5000,
      }),
    ).toBe(
      "port 7201\nbind 127.0.0.1\ndaemonize no\ndir /s\nsentinel monitor m0 127.0.0.1 7001 2\nsentinel down-after-milliseconds m0 1000\nsentinel failover-timeout m0 5000\nsentinel parallel-syncs m0 1\n",
    );
  });
});
