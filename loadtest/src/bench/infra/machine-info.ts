/** What the run ran on, for the report. */
import { execFileSync } from "node:child_process";
import { cpus, totalmem } from "node:os";
import { KAFKA_VERSION } from "@ladder/deploy/kafka-jars";

export function machineInfo() {
  let redisServer = "redis-server (version unknown)";
  try {
    const v = /v=(\S+)/.exec(execFileSync("redis-server", ["--version"], { encoding: "utf8" }))?.[1];
    if (v) redisServer = `redis-server ${v}`;
  } catch {
    // reported as unknown
  }
  return {
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model.trim() ?? "unknown",
    memoryGiB: Math.round(totalmem() / 2 ** 30),
    node: process.version,
    platform: `${process.platform} ${process.arch}`,
    redisServer,
    kafka: KAFKA_VERSION,
  };
}
