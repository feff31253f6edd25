// The README's way in, walked as a newcomer walks it: the Quick start's background block (start,
// status, logs, stop, reset) and the five-minute tour (the CLI, curl through the gateway, the client
// library example), parsed from README.md and run in order through bash, as written, each expected
// to exit 0 and to print what the README says it prints.
//
// Ports and paths. The commands name the local cluster's default ports (8080, 50051, 50052) and its
// data dir (.ladder/); on this machine other runs and other checkouts may hold those, so the test
// does not take them. Its cluster gets free ports and a data dir of its own through the LADDER_*
// variables the README documents (the CLI and the launcher read them: their commands run
// unchanged), and only where a command spells an address or the data dir out (the curl URLs, the
// client example's addresses, the token's path) is that text rewritten to the test's, the same
// way everywhere. The client example is written to a file named as the README names it, in a
// scratch folder of the checkout (git-ignored tmp/), so that `@ladder/client` resolves as it does
// for a user.
//
// The launcher's promises of a background start are checked on the way: every process up and listed,
// a second start and a reset refused while it runs, and after `stop` no process, state file or port
// left behind.
//
// Order. The tour says "with `npm start` running": it runs between the background block's `logs`
// and `stop` lines, which end it. `npm run logs` follows its files until interrupted: it is
// stopped (SIGINT, as Ctrl-C) once it printed both processes' lines.
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO } from "@ladder/deploy/built-entry";
import { freePort, portIsFree } from "@ladder/deploy/free-port";
import { launcherStatePath, processAlive, readLauncherState } from "@ladder/platform/launcher-state";
import { freshNamespace } from "@ladder/platform/test-namespace";
import { ALREADY_RUNNING, alivePids, launcherEnv, QUICKLY_MS, runLauncherCommand, until } from "./launcher-process.js";
import { readmeTour, type TourBlock } from "./readme-blocks.js";

const README = readFileSync(join(REPO, "README.md"), "utf8");
/**
 * A command still running after this is killed (and fails the test): a bound on a hung command, not a
 * speed claim. `npm start` builds and starts a broker and the services; beside the rest of the suite
 * and the container tests (scripts/test-all.sh), on two busy cores, that took over 120 s.
 */
const COMMAND_LIMIT_MS = 300_000;
const tour = readmeTour(README);

let dir: string;
let env: Record<string, string>;
let dataDir: string;
let scratch: string;
let ports: { gateway: number; router: number; ingest: number };
const launcherPids = new Set<number>();

/** The README's text with the test's addresses and data dir in place of the defaults. */
function localise(text: string): string {
  return text
    .replaceAll("127.0.0.1:8080", `127.0.0.1:${ports.gateway}`)
    .replaceAll("127.0.0.1:50051", `127.0.0.1:${ports.router}`)
    .replaceAll("127.0.0.1:50052", `127.0.0.1:${ports.ingest}`)
    .replaceAll("./.ladder/", `${dataDir}/`);
}

interface Ran {
  /** The exit code, or the signal that ended it. */
  code: number | string | null;
  out: string;
  err: string;
}

/** Runs one command line through bash in `cwd`; `stopWhen`: interrupt it (SIGINT) once its output satisfies that. */
function sh(line: string, cwd: string, stopWhen?: (out: string) => boolean): Promise<Ran> {
  return new Promise((resolve) => {
    const child = spawn("bash", ["-c", line], { cwd, env, stdio: ["ignore", "pipe", "pipe"], detached: stopWhen !== undefined });
    let out = "";
    let err = "";
    let interrupted = false;
    const timer = setTimeout(() => child.kill("SIGKILL"), COMMAND_LIMIT_MS);
    child.stdout.on("data", (b: Buffer) => {
      out += b.toString("utf8");
      if (!interrupted && stopWhen?.(out)) {
        interrupted = true;
        process.kill(-child.pid!, "SIGINT"); // the whole group, as Ctrl-C in a terminal
      }
    });
    child.stderr.on("data", (b: Buffer) => void (err += b.toString("utf8")));
    child.once("exit", (code, signal) => {
      clearTimeout(timer);
      resolve({ code: code ?? signal, out, err });
    });
  });
}

/** Runs a block's commands in order, each expected to exit 0; their outputs by line. */
async function runBlock(block: TourBlock, cwd = REPO): Promise<Map<string, string>> {
  const outputs = new Map<string, string>();
  for (const command of block.commands) {
    const follows = command.startsWith("npm run -s logs");
    const ran = await sh(localise(command), cwd, follows ? (out) => /\brouter\b/.test(out) && /\bshard-0\b/.test(out) : undefined);
    const ended = follows ? "SIGINT" : 0; // a follower ends only when interrupted
    expect({ command, code: ran.code }, `${command}\n${ran.out}${ran.err}`).toEqual({ command, code: ended });
    if (command.startsWith("npm start")) {
      const pid = readLauncherState(launcherStatePath(dataDir))?.launcherPid;
      if (pid !== undefined) launcherPids.add(pid);
    }
    if (command.startsWith("npm run -s ")) expect(ran.out, `${command}: npm's banner`).not.toMatch(/^> ladder@/m);
    outputs.set(command, ran.out);
  }
  return outputs;
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "ladder-readme-"));
  dataDir = join(dir, "data");
  scratch = join(REPO, "tmp", `readme-tour-${process.pid}`);
  mkdirSync(scratch, { recursive: true });
  ports = { gateway: await freePort(), router: await freePort(), ingest: await freePort() };
  const ns = freshNamespace("readme");
  ({ env } = await launcherEnv(dataDir, {
    LADDER_SCORE_TOPIC: ns.topic,
    LADDER_KEY_PREFIX: ns.keyPrefix,
    LADDER_GATEWAY_LISTEN: `127.0.0.1:${ports.gateway}`,
    LADDER_ROUTER_LISTEN: `127.0.0.1:${ports.router}`,
    LADDER_INGEST_LISTEN: `127.0.0.1:${ports.ingest}`,
  }));
});

afterAll(async () => {
  for (const pid of launcherPids) {
    if (!processAlive(pid)) continue;
    process.kill(pid, "SIGTERM");
    await until("the tour's launcher gone", 60_000, () => (processAlive(pid) ? undefined : true)).catch(() => undefined);
  }
  rmSync(scratch, { recursive: true, force: true });
  await rm(dir, { recursive: true, force: true });
}, 90_000);

describe("readme > the Quick start's background cluster and the five-minute tour", () => {
  it("finds the blocks it walks", () => {
    expect(tour.background.commands[0]).toBe("npm start -- --background");
    expect(tour.background.commands.map((c) => c.split(" ").slice(0, 3).join(" "))).toEqual([
      "npm start --",
      "npm run -s",
      "npm run -s",
      "npm run -s",
      "npm run -s",
    ]);
    expect(tour.cli.commands.length).toBeGreaterThanOrEqual(5);
    expect(tour.curl.commands.length).toBeGreaterThanOrEqual(2);
    expect(tour.client.code).toContain("new LadderClient(");
  });

  it("runs every command as written, in order, each exiting 0 with what the README says it prints", async () => {
    const cut = tour.background.commands.findIndex((c) => c.startsWith("npm run -s stop"));
    const start = await runBlock({ commands: tour.background.commands.slice(0, cut) });
    // "starts, prints the addresses and processes, returns once all run"
    expect(start.get("npm start -- --background")).toMatch(/ladder is running in the background \(pid \d+\)/);
    expect(start.get("npm start -- --background")).toContain(`127.0.0.1:${ports.router}`);
    // "the launcher's pid, each process's state, pid and address"
    const status = start.get("npm run -s cluster -- status")!;
    for (const name of ["kafka", "redis-0", "shard-0", "router", "ingest", "gateway"])
      expect(status).toMatch(new RegExp(`^ +${name} .*\\bup\\b`, "m"));
    // what the launcher promises of a background start: every process up, each listed with its pid and
    // address, its own lines in its log file, not on the terminal
    const state = readLauncherState(launcherStatePath(dataDir))!;
    const started = start.get("npm start -- --background")!;
    expect(state.processes.map((p) => `${p.name}:${p.state}`)).toEqual(
      ["kafka", "redis-0", "redis-1", "redis-2", "shard-0", "shard-1", "shard-2", "router", "ingest", "gateway"].map((n) => `${n}:up`),
    );
    for (const p of state.processes) expect(started).toMatch(new RegExp(`^  ${p.name} +pid ${p.pid} +${p.address}$`, "m"));
    expect(started).toMatch(new RegExp(`^  router +${state.router}$`, "m"));
    expect(started).toContain(`logs       ${join(dataDir, "logs")}`);
    expect(started).not.toMatch(/"level"/);
    expect(readFileSync(join(dataDir, "logs", "launcher.log"), "utf8")).toMatch(/ladder is running:/);
    // while it runs, a second start and a reset are refused at once, in one line, changing nothing
    const second = await runLauncherCommand("main", ["--background"], env);
    expect({ code: second.code, out: second.out }).toEqual({ code: 1, out: ALREADY_RUNNING(state.launcherPid, dataDir) });
    expect(second.ms).toBeLessThan(QUICKLY_MS);
    const refusedReset = await runLauncherCommand("control", ["reset"], env);
    expect({ code: refusedReset.code, out: refusedReset.out }).toEqual({
      code: 1,
      out: `ladder is running (pid ${state.launcherPid}, data dir ${dataDir}); stop it first: npm run stop\n`,
    });
    expect(existsSync(join(dataDir, "kafka"))).toBe(true);

    const cli = await runBlock(tour.cli);
    const says = (prefix: string) => [...cli].find(([c]) => c.startsWith(prefix))?.[1] ?? "";
    expect(says("npm run -s cli -- demo")).toMatch(/demo/);
    expect(says("npm run -s cli -- top ")).toMatch(/alice[\s\S]*1,?200[\s\S]*bob/);
    expect(says("npm run -s cli -- rank ")).toMatch(/alice/);
    expect(says("npm run -s cli -- around ")).toMatch(/alice/);
    for (const shard of ["shard-0", "shard-1", "shard-2"]) expect(says("npm run -s cli -- status")).toContain(shard);

    const curl = await runBlock(tour.curl);
    for (const [command, out] of curl) {
      const shown = tour.curl.shown.get(command); // e.g. `404 with {"error":{"code":"NOT_FOUND",...}}`
      if (shown) expect(out, command).toContain(shown);
      else expect(JSON.parse(out), command).not.toHaveProperty("error");
    }
    expect(JSON.parse(curl.get(tour.curl.commands[0]!)!)).toMatchObject({ entry: { playerId: "alice" } });

    writeFileSync(join(scratch, tour.client.file), localise(tour.client.code));
    const client = await runBlock({ commands: [tour.client.run] }, scratch);
    expect(client.get(tour.client.run)).toMatch(/^alice: rank 1 of 2\n$/); // 1200 + 30 is above bob's 50

    const stop = await runBlock({ commands: tour.background.commands.slice(cut, cut + 1) });
    expect(stop.get("npm run -s stop")).toMatch(/^stopping ladder \(pid \d+\): services, then Redis, then Kafka\nstopped in \d+\.\d s\n$/);
    // the stop waited for all of it: no process left, the state and pid files gone, Kafka's port free
    expect(processAlive(state.launcherPid)).toBe(false);
    expect(alivePids(state.processes.flatMap((p) => (p.pid === null ? [] : [p.pid])))).toEqual([]);
    expect(readLauncherState(launcherStatePath(dataDir))).toBeUndefined();
    expect(existsSync(join(dataDir, "launcher.pid"))).toBe(false);
    expect(await portIsFree(Number(env.LADDER_KAFKA_PORT))).toBe(true);
    const shutdown = readFileSync(join(dataDir, "logs", "launcher.log"), "utf8");
    expect(shutdown).toMatch(/"signal":"SIGTERM".*"msg":"stopping the cluster"/);
    expect(shutdown).not.toMatch(/"msg":"(process died|process restarted)/);
    const after = await runLauncherCommand("control", ["status"], env);
    expect({ code: after.code, out: after.out }).toEqual({ code: 3, out: `ladder is not running (data dir ${dataDir})\n` });
    const end = await runBlock({ commands: tour.background.commands.slice(cut + 1) });
    expect([...end.values()].at(-1)).toMatch(new RegExp(`^removed from ${dataDir}:\n`));
  }, 600_000);
});
