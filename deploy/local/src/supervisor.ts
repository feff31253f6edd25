// Keeps the local cluster's processes running (`npm start`): each process the launcher started is
// watched, and when it dies it is started again (its `start`: same ports, same data dir) after a
// pause from its RestartBackoff (restart-policy.ts), while every other process keeps running. A
// start that fails is tried again after the next, longer pause. Each death, restart and failed
// start is logged with the exit code or signal and the restart count, and every change of a
// process's state is reported to `onChange` (the launcher rewrites its state file: launcher-state.ts).
//
// stop() (Ctrl-C) ends the supervision first: nothing is restarted from then on, a process that dies
// meanwhile stays dead, a start already under way is let finish and its process stopped with the rest;
// then every process is stopped, in `stopOrder` groups (services, then Sentinels, Redis, Kafka).
import type { Logger } from "@ladder/platform/logger";
import type { LauncherProcess, ProcessKind } from "@ladder/platform/launcher-state";
import { describeExit, type ExitStatus } from "./managed-process.js";
import { RestartBackoff, type RestartPolicy } from "./restart-policy.js";

/** A running process as the supervisor sees it. */
export interface Running {
  readonly pid: number | undefined;
  /** When it started (Unix ms); when it was handed over, if absent. */
  readonly startedAtMs?: number;
  /** Resolves (never rejects) when the process has exited. */
  readonly exited: Promise<ExitStatus>;
  /** A clean stop; resolves once it has exited. */
  stop(): Promise<void>;
}

export interface Supervised {
  /** Unique: kafka, redis-0, sentinel-1, shard-2, router... */
  name: string;
  kind: ProcessKind;
  /** host:port it serves on. */
  address: string;
  /** Stop order at shutdown, lowest first; equal ones stop together. */
  stopOrder: number;
  /** Starts it again after it died; resolves once it is up, rejects when it did not come up (nothing is left running). */
  start(): Promise<Running>;
}

export interface SupervisorOptions {
  policy: RestartPolicy;
  log: Logger;
  now?: () => number;
  /** Waits `ms`, or less once `signal` aborts (the supervisor stops). */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  /** After every change of a process's state. */
  onChange?: () => void;
}

interface Unit {
  readonly spec: Supervised;
  readonly backoff: RestartBackoff;
  running: Running | undefined;
  /** A start under way. */
  starting: Promise<unknown> | undefined;
  view: LauncherProcess;
}

export class Supervisor {
  private readonly units: Unit[] = [];
  private readonly ending = new AbortController();
  private readonly now: () => number;
  private readonly sleep: (ms: number, signal: AbortSignal) => Promise<void>;

  constructor(private readonly o: SupervisorOptions) {
    this.now = o.now ?? Date.now;
    this.sleep = o.sleep ?? abortableSleep;
  }

  /** Supervises `spec`, which runs as `running` now. */
  watch(spec: Supervised, running: Running): void {
    if (this.units.some((u) => u.spec.name === spec.name)) throw new Error(`${spec.name} is supervised already`);
    const u: Unit = {
      spec,
      running,
      starting: undefined,
      backoff: new RestartBackoff(this.o.policy, this.now),
      view: {
        name: spec.name,
        kind: spec.kind,
        address: spec.address,
        state: "up",
        pid: running.pid ?? null,
        restarts: 0,
        upSinceMs: running.startedAtMs ?? this.now(),
        lastExit: null,
        lastExitAtMs: null,
        nextStartAtMs: null,
      },
    };
    u.backoff.up();
    this.units.push(u);
    void this.supervise(u);
    this.o.onChange?.();
  }

  /** Every supervised process as it stands, in the order they were watched. */
  processes(): LauncherProcess[] {
    return this.units.map((u) => ({ ...u.view }));
  }

  get stopping(): boolean {
    return this.ending.signal.aborted;
  }

  /** No more restarts; then stops every process, group by group (`stopOrder`), and resolves once all have exited. */
  async stop(): Promise<void> {
    this.ending.abort();
    await Promise.allSettled(this.units.map((u) => u.starting));
    const orders = [...new Set(this.units.map((u) => u.spec.stopOrder))].sort((a, b) => a - b);
    for (const order of orders) {
      await Promise.all(
        this.units
          .filter((u) => u.spec.stopOrder === order)
          .map(async (u) => {
            await u.running?.stop().catch((err: unknown) => this.o.log.warn({ err, process: u.spec.name }, "stopping a process failed"));
            u.view = { ...u.view, state: "stopped", pid: null, nextStartAtMs: null };
          }),
      );
    }
    this.o.onChange?.();
  }

  private async supervise(u: Unit): Promise<void> {
    while (u.running) {
      const { pid } = u.running;
      const exit = await u.running.exited;
      if (this.stopping) return;
      u.running = undefined;
      const pause = u.backoff.died();
      u.view = { ...u.view, state: "restarting", pid: null, upSinceMs: null, lastExit: describeExit(exit), lastExitAtMs: this.now() };
      this.o.log.error(
        { process: u.spec.name, processPid: pid, code: exit.code, signal: exit.signal, restarts: u.view.restarts, restartInMs: pause },
        "process died; restarting it",
      );
      await this.restart(u, pause);
    }
  }

  /** Starts `u` again after `pause`, and after longer ones while its starts fail; gives up only when the supervisor stops. */
  private async restart(u: Unit, pause: number): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      u.view = { ...u.view, nextStartAtMs: this.now() + pause };
      this.o.onChange?.();
      await this.sleep(pause, this.ending.signal);
      if (this.stopping) return;
      const started = u.spec.start();
      u.starting = started;
      try {
        u.running = await started;
      } catch (err) {
        if (this.stopping) return;
        pause = u.backoff.startFailed();
        this.o.log.error({ process: u.spec.name, attempt, err, restartInMs: pause }, "a restart failed; trying again");
        continue;
      } finally {
        u.starting = undefined;
      }
      if (this.stopping) return; // stop() stops it with the rest
      u.backoff.up();
      u.view = {
        ...u.view,
        state: "up",
        pid: u.running.pid ?? null,
        restarts: u.view.restarts + 1,
        upSinceMs: u.running.startedAtMs ?? this.now(),
        nextStartAtMs: null,
      };
      this.o.log.info({ process: u.spec.name, processPid: u.running.pid, restarts: u.view.restarts, attempt }, "process restarted");
      this.o.onChange?.();
      return;
    }
  }
}

/** setTimeout that ends early when `signal` aborts. */
export function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
  });
}
