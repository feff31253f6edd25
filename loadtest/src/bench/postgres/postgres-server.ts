/**
 * The PostgreSQL server the baseline measures: the bench's own, started for the run like
 * its Redis and Kafka, so it can be configured for the table it serves. `initdb` makes a
 * fresh cluster in a temporary directory (trust authentication, the bench's OS user name as
 * its superuser), the settings below go into its postgresql.conf, `pg_ctl start` runs it
 * on a free port of 127.0.0.1, and the clean-up stops it (`pg_ctl stop -m fast`) and
 * removes the directory. The machine's own server (5432) keeps Debian's defaults
 * (shared_buffers 128 MB: a tenth of the 10M-row table) and is shared with other users;
 * a benchmark may not restart it with other settings.
 *
 * Settings: shared_buffers as the plan sizes it (room for the largest table and its
 * indexes: postgres-bench.ts then loads them into it with pg_prewarm and checks with
 * pg_buffercache), everything else PostgreSQL's defaults. The binaries are the newest
 * /usr/lib/postgresql/<version>/bin (Debian's layout) or `pg_config --bindir`'s. initdb
 * and the server refuse to run as root: run as root, the bench runs them as the
 * `postgres` OS user (the one Debian's package creates), which then owns the directory.
 */
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { appendFile, chown, mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir, userInfo } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import type { CleanupStack } from "../infra/cleanup.js";
import { benchPort } from "../infra/ports.js";

const run = promisify(execFile);

export interface PgConnection {
  host: string;
  port: number;
  database: string;
  user: string;
}

export interface BenchPostgres {
  connection: PgConnection;
  /** Where the server's binaries came from. */
  binDir: string;
  /** The postmaster's pid: its process tree is the server. */
  pid: number;
  /** The settings written into its postgresql.conf. */
  settings: Record<string, string>;
  /** Stops it and removes its directory (also done at the end of the run). */
  stop(): Promise<void>;
}

export interface BenchPostgresDeps {
  ports: Set<number>;
  cleanup: CleanupStack;
  sharedBuffersMb: number;
}

/** An OS user to run the server as: the current one, or `postgres` when that is root. */
interface RunAs {
  uid?: number;
  gid?: number;
}

export async function startBenchPostgres(d: BenchPostgresDeps): Promise<BenchPostgres> {
  const binDir = await postgresBinDir();
  const runAs = await serverUser();
  const dir = await mkdtemp(join(tmpdir(), "ladder-bench-pg-"));
  const data = join(dir, "data");
  const exec = (tool: string, args: string[]) => run(join(binDir, tool), args, { ...runAs, cwd: dir, timeout: 180_000 });
  // One clean-up entry for the server and its directory, in that order, however it is reached
  // (the benchmark's own stop, or the run's clean-up on an error or Ctrl-C, or both at once).
  let started = false;
  let stopping: Promise<void> | undefined;
  const stopServer = () =>
    (stopping ??= started ? exec("pg_ctl", ["-D", data, "-m", "fast", "-w", "-t", "60", "stop"]).then(() => {}) : Promise.resolve());
  const entry = d.cleanup.push(`PostgreSQL (${dir})`, async () => {
    try {
      await stopServer();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
  if (runAs.uid !== undefined) await chown(dir, runAs.uid, runAs.gid!);
  const user = userInfo().username;
  try {
    await exec("initdb", ["-D", data, "-U", user, "-A", "trust", "-E", "UTF8", "--locale=C", "--no-sync"]);
  } catch (err) {
    throw new Error(`initdb failed: ${commandOutput(err)}`, { cause: err });
  }
  const port = await benchPort(d.ports);
  const settings: Record<string, string> = {
    listen_addresses: "'127.0.0.1'",
    port: String(port),
    unix_socket_directories: `'${dir}'`,
    shared_buffers: `'${d.sharedBuffersMb}MB'`,
  };
  await appendFile(
    join(data, "postgresql.conf"),
    `\n# ladder bench\n${Object.entries(settings)
      .map(([k, v]) => `${k} = ${v}`)
      .join("\n")}\n`,
  );
  const log = join(dir, "server.log");
  try {
    started = true; // from here on, stop it: pg_ctl may have started it before failing
    await exec("pg_ctl", ["-D", data, "-l", log, "-w", "-t", "120", "start"]);
  } catch (err) {
    const tail = await readFile(log, "utf8").catch(() => "");
    throw new Error(`PostgreSQL did not start: ${commandOutput(err)}\n${tail.split("\n").slice(-20).join("\n")}`, { cause: err });
  }
  const pid = Number((await readFile(join(data, "postmaster.pid"), "utf8")).split("\n")[0]);
  return {
    connection: { host: "127.0.0.1", port, database: "postgres", user },
    binDir,
    pid,
    settings: Object.fromEntries(Object.entries(settings).map(([k, v]) => [k, v.replace(/^'|'$/g, "")])),
    stop: async () => {
      await entry.release();
      await stopServer().catch(() => {}); // when the run's clean-up took the entry first, wait for it all the same (it reports failures)
    },
  };
}

/** The newest Debian-layout server binaries, else pg_config's. */
async function postgresBinDir(): Promise<string> {
  const root = "/usr/lib/postgresql";
  const versions = existsSync(root)
    ? (await readdir(root)).filter((v) => /^\d+(\.\d+)?$/.test(v)).sort((a, b) => Number(b) - Number(a))
    : [];
  for (const v of versions) if (existsSync(join(root, v, "bin", "initdb"))) return join(root, v, "bin");
  try {
    const dir = (await run("pg_config", ["--bindir"])).stdout.trim();
    if (existsSync(join(dir, "initdb"))) return dir;
  } catch {
    // no pg_config: fall through
  }
  throw new Error(
    "no PostgreSQL server binaries (initdb, pg_ctl, postgres) under /usr/lib/postgresql/<version>/bin or pg_config --bindir: install the server (Debian: apt-get install postgresql)",
  );
}

async function serverUser(): Promise<RunAs> {
  if (process.getuid?.() !== 0) return {};
  const line = (await readFile("/etc/passwd", "utf8")).split("\n").find((l) => l.startsWith("postgres:"));
  const [, , uid, gid] = line?.split(":") ?? [];
  if (uid === undefined || gid === undefined)
    throw new Error(
      "the bench runs as root, and PostgreSQL refuses to: it needs a `postgres` OS user to run its server as (Debian's postgresql package creates it)",
    );
  return { uid: Number(uid), gid: Number(gid) };
}

function commandOutput(err: unknown): string {
  const e = err as { message?: string; stderr?: string; stdout?: string };
  return [e.message, e.stderr, e.stdout].filter(Boolean).join("\n").trim();
}
