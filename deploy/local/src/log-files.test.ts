import { describe, expect, it } from "vitest";
import { logFilePath, sourceOf } from "./log-files.js";

describe("deploy > log files", () => {
  it("names a child's file after its service, or its kind and port", () => {
    expect(sourceOf({ service: "shard-0", msg: "output" })).toBe("shard-0");
    expect(sourceOf({ proc: "redis", port: 7001 })).toBe("redis-7001");
    expect(sourceOf({ proc: "sentinel", port: 7401 })).toBe("sentinel-7401");
    expect(sourceOf({ proc: "kafka" })).toBe("kafka");
    expect(logFilePath("/d", "router")).toBe("/d/logs/router.log");
  });

  it("names no file for the launcher's own records, nor for names unsafe as file names", () => {
    expect(sourceOf({ name: "local-cluster", msg: "kafka ready" })).toBeUndefined();
    expect(sourceOf({ service: "../etc/passwd" })).toBeUndefined();
    expect(sourceOf({ service: "" })).toBeUndefined();
  });
});
