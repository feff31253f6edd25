// deploy/compose/docker-compose.yml run for real by the container tests: `docker-compose` (Debian's,
// 1.29) against the engine DOCKER_HOST names, under a project name of the test's own. Every container
// uses host networking on the fixed ports the compose file lists, so `up` first checks that each is
// free (another cluster on them would answer the test instead).
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { portIsFree } from "@ladder/deploy/free-port";

const run = promisify(execFile);
export const COMPOSE_FILE = fileURLToPath(new URL("../deploy/compose/docker-compose.yml", import.meta.url));

/** Every loopback port the compose file binds (its header lists them). */
export const COMPOSE_PORTS = [
  29091,
  29092,
  29093,
  29191,
  29192,
  29193, // Kafka client, controller
  27000,
  27001,
  27002,
  27100,
  27101,
  27102,
  27200,
  27201,
  27202, // Redis primaries, replicas, Sentinels
  29470,
  29471,
  29472,
  25051,
  25053,
  29464,
  29466,
  25052,
  29465, // shard nodes' metrics, routers, ingest
  25054, // the gateway
];

export interface ComposeProject {
  readonly name: string;
  up(): Promise<void>;
  /** `down -v`: removes the containers and Kafka's volumes. */
  down(): Promise<void>;
  /** SIGKILL to a service's main process inside its container: a crash, which its restart policy answers. */
  crash(service: string): Promise<void>;
  /** `stop`: the service's container stopped (SIGTERM), and not restarted until `start`. */
  stop(service: string): Promise<void>;
  start(service: string): Promise<void>;
  /** How often the engine restarted a service's container, and whether it runs. */
  state(service: string): Promise<{ running: boolean; restarts: number }>;
  logs(service: string, tail?: number): Promise<string>;
  /** A file inside a running service's container (`docker exec cat`). */
  readFile(service: string, path: string): Promise<string>;
}

export function composeProject(name: string, env: Record<string, string>): ComposeProject {
  const compose = async (...args: string[]) =>
    (
      await run("docker-compose", ["-f", COMPOSE_FILE, "-p", name, ...args], {
        env: { ...process.env, ...env },
        maxBuffer: 64 * 1024 * 1024,
        timeout: 300_000,
      })
    ).stdout;
  const container = (service: string) => `${name}_${service}_1`;
  const inspect = async (service: string, format: string) =>
    (await run("docker", ["inspect", "-f", format, container(service)])).stdout.trim();
  return {
    name,
    async up() {
      const busy: number[] = [];
      for (const port of COMPOSE_PORTS) if (!(await portIsFree(port))) busy.push(port);
      if (busy.length > 0) throw new Error(`ports ${busy.join(", ")} are in use: the compose cluster needs them free`);
      await compose("up", "-d", "--no-build");
    },
    async down() {
      await compose("down", "-v", "-t", "10");
    },
    async crash(service) {
      const pid = Number(await inspect(service, "{{.State.Pid}}"));
      if (!(pid > 0)) throw new Error(`${container(service)} has no running process`);
      process.kill(pid, "SIGKILL");
    },
    async stop(service) {
      await compose("stop", "-t", "10", service);
    },
    async start(service) {
      await compose("start", service);
    },
    async state(service) {
      const [running, restarts] = (await inspect(service, "{{.State.Running}} {{.RestartCount}}")).split(" ");
      return { running: running === "true", restarts: Number(restarts) };
    },
    async readFile(service, path) {
      return (await run("docker", ["exec", container(service), "cat", path])).stdout;
    },
    async logs(service, tail = 40) {
      const { stdout, stderr } = await run("docker", ["logs", "--tail", String(tail), container(service)], { maxBuffer: 16 * 1024 * 1024 });
      return stdout + stderr;
    },
  };
}
