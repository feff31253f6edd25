// Finds or fetches the jars of the local Kafka broker: a given Kafka install, the cache, or Maven Central.
//
// The cache holds `${cacheDir}/kafka-<version>/libs`, complete only when it contains the marker file
// written before it was moved into place. A fetch runs `mvn copy-dependencies` on
// deploy/local/kafka/pom.xml into a private temporary directory and renames that directory into place,
// so concurrent callers and interrupted fetches never see (or leave) a half-filled libs directory.
// The marker holds a hash of the pom: editing the pom makes the next call fetch again.
import { execFile } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { access, mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import type { Logger } from "@ladder/platform/logger";

export const KAFKA_VERSION = "4.1.1";

/** The pom that lists the broker's jars, found beside this source file whatever the cwd. */
export const KAFKA_POM = fileURLToPath(new URL("../kafka/pom.xml", import.meta.url));

const MARKER = ".complete";
const DEPENDENCY_PLUGIN = "org.apache.maven.plugins:maven-dependency-plugin:3.8.1:copy-dependencies";
const MVN_TIMEOUT_MS = 10 * 60 * 1000; // 10 min: a cold ~/.m2 downloads ~45 MB
const run = promisify(execFile);

export interface KafkaJarsOptions {
  /** Where fetched jars are kept between runs, e.g. ~/.cache/ladder. */
  cacheDir: string;
  /** An unpacked Apache Kafka distribution to use instead: its libs/ is returned. */
  kafkaHome?: string;
  log: Logger;
}

/** Returns a directory holding every jar the broker needs (for `java -cp '<dir>/*'`). */
export async function ensureKafkaJars({ cacheDir, kafkaHome, log }: KafkaJarsOptions): Promise<string> {
  if (kafkaHome !== undefined) {
    const libs = join(kafkaHome, "libs");
    if (!(await exists(libs))) {
      throw new Error(`kafkaHome ${kafkaHome} has no libs/ directory`);
    }
    return libs;
  }
  const libs = join(cacheDir, `kafka-${KAFKA_VERSION}`, "libs");
  const pomHash = await hashFile(KAFKA_POM);
  if (await isComplete(libs, pomHash)) return libs;
  await fetchInto(libs, pomHash, log);
  return libs;
}

async function fetchInto(libs: string, pomHash: string, log: Logger): Promise<void> {
  const home = dirname(libs);
  const tmp = join(home, `tmp-${process.pid}-${randomBytes(4).toString("hex")}`);
  const started = Date.now();
  log.info({ libs, pom: KAFKA_POM }, "fetching kafka jars with maven");
  try {
    await mkdir(tmp, { recursive: true });
    await mvnCopyDependencies(join(tmp, "libs"));
    await writeFile(join(tmp, "libs", MARKER), pomHash);
    await replaceDir(join(tmp, "libs"), libs, pomHash);
    log.info({ libs, ms: Date.now() - started }, "kafka jars fetched");
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
}

async function mvnCopyDependencies(outputDir: string): Promise<void> {
  const args = [
    "-q",
    "-B",
    "-Dstyle.color=never",
    "-f",
    KAFKA_POM,
    DEPENDENCY_PLUGIN,
    "-DincludeScope=runtime",
    `-DoutputDirectory=${outputDir}`,
  ];
  try {
    await run("mvn", args, { cwd: dirname(KAFKA_POM), timeout: MVN_TIMEOUT_MS, maxBuffer: 16 * 1024 * 1024 });
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string; message: string };
    const output = `${e.stdout ?? ""}${e.stderr ?? ""}`.trim().split("\n").slice(-30).join("\n");
    throw new Error(`mvn copy-dependencies failed: ${e.message}\n${output}`, { cause: err });
  }
}

/**
 * Renames `from` onto `to`. If another caller got there first with a complete copy, keeps theirs;
 * an incomplete or stale `to` (no marker, or another pom's) is moved aside and removed first.
 */
async function replaceDir(from: string, to: string, pomHash: string): Promise<void> {
  if (await exists(to)) {
    if (await isComplete(to, pomHash)) return;
    const aside = `${to}.stale-${randomBytes(4).toString("hex")}`;
    await rename(to, aside).catch(() => undefined);
    await rm(aside, { recursive: true, force: true });
  }
  try {
    await rename(from, to);
  } catch (err) {
    if (!(await isComplete(to, pomHash))) throw err;
  }
}

async function isComplete(libs: string, pomHash: string): Promise<boolean> {
  const marker = await readFile(join(libs, MARKER), "utf8").catch(() => undefined);
  return marker === pomHash;
}

async function hashFile(path: string): Promise<string> {
  return createHash("sha256")
    .update(await readFile(path))
    .digest("hex");
}

async function exists(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    () => false,
  );
}
