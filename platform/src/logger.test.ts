import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { redactSecrets, rootLogger } from "./logger.js";

describe("platform > logger", () => {
  it("masks the credentials of URLs", () => {
    expect(redactSecrets("redis://:s3cret@10.0.0.5:6379/0")).toBe("redis://***@10.0.0.5:6379/0");
    expect(redactSecrets("shard-0=rediss://admin:p%40ss@h:1,shard-1=redis://h:2")).toBe("shard-0=rediss://***@h:1,shard-1=redis://h:2");
    expect(redactSecrets("no url here, user@example.com")).toBe("no url here, user@example.com");
    expect(redactSecrets("redis://127.0.0.1:7001")).toBe("redis://127.0.0.1:7001");
  });

  it("writes no password into any log line: message, fields, nested fields or errors", async () => {
    const lines: string[] = [];
    const sink = new Writable({ write: (chunk, _enc, done) => void (lines.push(String(chunk)), done()) });
    const withSink = rootLogger({ level: "info", name: "t", destination: sink });
    withSink.info(
      { redis: "redis://:hunter2@h:1", nested: { url: "redis://u:hunter2@h:2" }, list: ["rediss://:hunter2@h:3"] },
      "connecting to redis://:hunter2@h:4",
    );
    withSink.error({ err: new Error("connect to redis://:hunter2@h:5 failed") }, "oops");
    const text = lines.join("");
    expect(text).not.toContain("hunter2");
    expect(text.match(/\*\*\*@/g)?.length).toBe(6); // the error's message shows in its stack too
  });

  it("masks Kafka passwords: a password field, a JAAS line and a SCRAM argument", () => {
    const lines: string[] = [];
    const sink = new Writable({ write: (chunk, _enc, done) => void (lines.push(String(chunk)), done()) });
    const withSink = rootLogger({ level: "info", name: "t", destination: sink });
    withSink.info({ sasl: { mechanism: "scram-sha-512", username: "ingest", password: "hunter2" } }, "login");
    withSink.info('sasl.jaas.config=ScramLoginModule required username="broker" password="hunter2" user_broker="hunter2";');
    withSink.error({ err: new Error("format --add-scram SCRAM-SHA-512=[name=ingest,password=hunter2] failed") }, "oops");
    const text = lines.join("");
    expect(text).not.toContain("hunter2");
    expect(text).toContain('"username":"ingest"');
  });
});
