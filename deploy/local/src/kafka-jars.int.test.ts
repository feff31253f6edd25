import { mkdir, readdir, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { silentLogger } from "@ladder/platform/logger";
import { ensureKafkaJars, KAFKA_VERSION } from "./kafka-jars.js";
import { tempDir } from "./test-support.js";

const log = silentLogger();

describe("deploy > kafka jars", () => {
  let dir: string;

  beforeAll(async () => {
    dir = await tempDir("kafka-jars");
  });

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("gives concurrent first callers one complete cache, then answers from it without maven", async () => {
    const cacheDir = join(dir, "cache");
    const [a, b] = await Promise.all([ensureKafkaJars({ cacheDir, log }), ensureKafkaJars({ cacheDir, log })]);
    expect(a).toBe(join(cacheDir, `kafka-${KAFKA_VERSION}`, "libs"));
    expect(b).toBe(a);
    const jars = await readdir(a);
    expect(jars).toContain(`kafka_2.13-${KAFKA_VERSION}.jar`);
    expect(jars).toContain("log4j-slf4j2-impl-2.25.3.jar");
    expect(jars.filter((j) => j.startsWith("slf4j-api-"))).toEqual([expect.stringMatching(/^slf4j-api-2\./)]);
    expect(await readdir(join(cacheDir, `kafka-${KAFKA_VERSION}`))).toEqual(["libs"]); // no temporaries left

    const started = Date.now();
    expect(await ensureKafkaJars({ cacheDir, log })).toBe(a);
    expect(Date.now() - started).toBeLessThan(500);
  }, 600_000);

  it("replaces a libs directory that was never completed", async () => {
    const cacheDir = join(dir, "partial");
    const libs = join(cacheDir, `kafka-${KAFKA_VERSION}`, "libs");
    await mkdir(libs, { recursive: true });
    await writeFile(join(libs, "half.jar"), "");
    expect(await ensureKafkaJars({ cacheDir, log })).toBe(libs);
    const jars = await readdir(libs);
    expect(jars).not.toContain("half.jar");
    expect(jars).toContain(`kafka-server-${KAFKA_VERSION}.jar`);
  }, 600_000);

  it("uses an installed kafka's libs, and says so when it has none", async () => {
    const home = join(dir, "kafka-home");
    await mkdir(join(home, "libs"), { recursive: true });
    expect(await ensureKafkaJars({ cacheDir: join(dir, "unused"), kafkaHome: home, log })).toBe(join(home, "libs"));
    await expect(ensureKafkaJars({ cacheDir: dir, kafkaHome: join(dir, "nowhere"), log })).rejects.toThrow(/no libs/);
  });
});
