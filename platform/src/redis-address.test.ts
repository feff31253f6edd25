import { describe, expect, it } from "vitest";
import { expandSentinelUrl, hostPortProblem, isSentinelUrl, parseSentinelName, parseSentinelUrl } from "./redis-address.js";

describe("platform > redis-address", () => {
  it("expands the short form with the Sentinels, and parses the full form back", () => {
    const full = expandSentinelUrl("sentinel://ladder-shard-0", ["127.0.0.1:7201", "h:7202", "[::1]:7203"]);
    expect(full).toBe("sentinel://127.0.0.1:7201,h:7202,[::1]:7203/ladder-shard-0");
    expect(parseSentinelUrl(full)).toEqual({
      name: "ladder-shard-0",
      password: undefined,
      sentinels: [
        { host: "127.0.0.1", port: 7201 },
        { host: "h", port: 7202 },
        { host: "::1", port: 7203 },
      ],
    });
    expect(parseSentinelUrl(expandSentinelUrl("sentinel://:s%40cret@m", ["h:1"]))).toEqual({
      name: "m",
      password: "s@cret",
      sentinels: [{ host: "h", port: 1 }],
    });
  });

  it("leaves redis:// addresses alone and refuses malformed sentinel ones without showing the password", () => {
    expect(isSentinelUrl("redis://h:1")).toBe(false);
    expect(parseSentinelUrl("redis://h:1")).toBeUndefined();
    expect(() => parseSentinelUrl("sentinel://:hunter2@m")).toThrow(/not a full sentinel address/);
    expect(() => parseSentinelUrl("sentinel://:hunter2@m")).not.toThrow(/hunter2/);
    expect(() => parseSentinelUrl("sentinel://h/m")).toThrow(/not a full sentinel address/);
    expect(parseSentinelName("sentinel://user:pw@m")).toMatch(/password/);
    expect(parseSentinelName("sentinel://m/x")).toMatch(/not a master name/);
    expect(hostPortProblem("h:0")).toBeDefined();
    expect(hostPortProblem("h:6379")).toBeUndefined();
  });
});
