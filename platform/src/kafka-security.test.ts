import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "./config.js";

const dir = mkdtempSync(join(tmpdir(), "ladder-kafka-security-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const problemsOf = (env: Record<string, string>): string => {
  try {
    loadConfig(env);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as ConfigError).problems.join("\n");
  }
  return "";
};

describe("platform > kafka security", () => {
  it("is PLAINTEXT without login when nothing is set, for the service and the router's control plane", () => {
    const c = loadConfig({});
    expect(c.kafkaSecurity).toBeUndefined();
    expect(c.kafkaControlSecurity).toBeUndefined();
  });

  it("reads a login with TLS, the control login defaulting to it", () => {
    const c = loadConfig({ LADDER_KAFKA_SASL_USERNAME: "ingest", LADDER_KAFKA_SASL_PASSWORD: "pw", LADDER_KAFKA_TLS_CA: "/ca.pem" });
    expect(c.kafkaSecurity).toEqual({
      sasl: { mechanism: "scram-sha-512", username: "ingest", password: "pw" },
      tls: { caFile: "/ca.pem" },
    });
    expect(c.kafkaControlSecurity).toEqual(c.kafkaSecurity);
    expect(Object.isFrozen(c.kafkaSecurity)).toBe(true);
    const r = loadConfig({
      LADDER_KAFKA_SASL_USERNAME: "router",
      LADDER_KAFKA_SASL_PASSWORD: "a",
      LADDER_KAFKA_CONTROL_SASL_USERNAME: "router-control",
      LADDER_KAFKA_CONTROL_SASL_PASSWORD: "b",
      LADDER_KAFKA_TLS: "1",
    });
    expect(r.kafkaControlSecurity).toEqual({
      sasl: { mechanism: "scram-sha-512", username: "router-control", password: "b" },
      tls: { caFile: undefined },
    });
  });

  it("reads the password from the first line of a file", () => {
    const file = join(dir, "pw");
    writeFileSync(file, "s3cret\n");
    const c = loadConfig({
      LADDER_KAFKA_SASL_USERNAME: "shard",
      LADDER_KAFKA_SASL_PASSWORD_FILE: file,
      LADDER_KAFKA_SASL_MECHANISM: "scram-sha-256",
    });
    expect(c.kafkaSecurity?.sasl).toEqual({ mechanism: "scram-sha-256", username: "shard", password: "s3cret" });
  });

  it("names the field and the limit of every bad setting, without the password", () => {
    const problems = problemsOf({
      LADDER_KAFKA_SASL_USERNAME: "x".repeat(300),
      LADDER_KAFKA_SASL_PASSWORD: "hunter2",
      LADDER_KAFKA_SASL_PASSWORD_FILE: join(dir, "missing"),
      LADDER_KAFKA_SASL_MECHANISM: "gssapi",
      LADDER_KAFKA_CONTROL_SASL_PASSWORD: "hunter2",
    });
    expect(problems).toMatch(/LADDER_KAFKA_SASL_USERNAME.*300 characters, at most 256/);
    expect(problems).toMatch(/LADDER_KAFKA_SASL_PASSWORD_FILE.*cannot read .*missing: ENOENT/);
    expect(problems).toMatch(/LADDER_KAFKA_SASL_MECHANISM/);
    expect(problems).toMatch(/LADDER_KAFKA_CONTROL_SASL_USERNAME.*needed with LADDER_KAFKA_CONTROL_SASL_PASSWORD/);
    expect(problems).not.toContain("hunter2");
    expect(problemsOf({ LADDER_KAFKA_SASL_USERNAME: "u" })).toMatch(/LADDER_KAFKA_SASL_PASSWORD.*needed with LADDER_KAFKA_SASL_USERNAME/);
    const both = join(dir, "both");
    writeFileSync(both, "x\n");
    expect(problemsOf({ LADDER_KAFKA_SASL_USERNAME: "u", LADDER_KAFKA_SASL_PASSWORD: "p", LADDER_KAFKA_SASL_PASSWORD_FILE: both })).toMatch(
      /LADDER_KAFKA_SASL_PASSWORD_FILE.*give one of the two/,
    );
  });
});
