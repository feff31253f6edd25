import { mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  kafkaLoginFromFile,
  readCredentialsDocument,
  readCredentialsFile,
  tokenFromFile,
  writeCredentialsDocument,
} from "./credentials-file.js";

const dir = mkdtempSync(join(tmpdir(), "ladder-credentials-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const grants = [{ name: "a", token: "t".repeat(24), roles: ["admin" as const] }];

describe("platform > credentials file", () => {
  it("reads the array form (tokens only) as before", () => {
    const file = join(dir, "array.json");
    writeFileSync(file, JSON.stringify(grants));
    expect(readCredentialsFile(file)).toEqual(grants);
    expect(readCredentialsDocument(file)).toEqual({ tokens: grants });
    expect(kafkaLoginFromFile(file, "ingest")).toBeUndefined();
  });

  it("writes the object form 0600, keeping sections it does not know, and reads tokens and Kafka logins from it", () => {
    const file = join(dir, "object.json");
    writeFileSync(file, "[]", { mode: 0o644 });
    writeCredentialsDocument(file, { tokens: grants, kafka: { caFile: "/ca.pem", users: { ingest: "pw" } }, redis: { other: 1 } });
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(tokenFromFile(file, "admin")).toBe(grants[0]!.token);
    expect(kafkaLoginFromFile(file, "ingest")).toEqual({ username: "ingest", password: "pw", caFile: "/ca.pem" });
    expect(kafkaLoginFromFile(file, "router")).toBeUndefined();
    expect(readCredentialsDocument(file).redis).toEqual({ other: 1 });
  });

  it("refuses a file of neither form, naming it", () => {
    const file = join(dir, "bad.json");
    writeFileSync(file, JSON.stringify({ tokens: "no" }));
    expect(() => readCredentialsFile(file)).toThrow(/bad\.json: not a JSON array/);
    writeFileSync(file, JSON.stringify({ tokens: [], kafka: { users: { a: 1 } } }));
    expect(() => readCredentialsFile(file)).toThrow(/bad\.json: "kafka" is not/);
  });
});
