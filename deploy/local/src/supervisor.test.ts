// The supervisor's rules on stand-in processes (promises that "exit" when the test says so), a fake
// clock and an injected sleep that records each pause: restarts with the policy's pauses, the others
// untouched, failed starts retried, nothing restarted once stopping, stop order.
import { describe, expect, it } from "vitest";
import { silentLogger } from "@ladder/platform/logger";
import type { ExitStatus } from "./managed-process.js";
import { Supervisor, type Running, type Supervised } from "./supervisor.js";

class FakeProcess implements Running {
  static nextPid = 100;
  readonly pid = FakeProcess.nextPid++;
  readonly exited: Promise<ExitStatus>;
  stopped = false;
  private end!: (s: ExitStatus) => void;
  constructor(
    private readonly events: string[],
    private readonly name: string,
  ) {
    this.exited = new Promise((resolve) => (this.end = resolve));
  }
  die(signal: NodeJS.Signals = "SIGKILL"): void {
    this.end({ code: null, signal });
  }
  async stop(): Promise<void> {
    this.events.push(`stop ${this.name}`);
    this.stopped = true;
    this.end({ code: 0, signal: null });
    await Promise.resolve();
  }
}

function harness() {
  let t = 0;
  const pauses: number[] = [];
  const events: string[] = [];
  let wake: (() => void) | undefined;
  const supervisor = new Supervisor({
    policy: { initialMs: 100, maxMs: 400, healthyAfterMs: 10_000 },
    log: silentLogger(),
    now: () => t,
    // each pause is recorded, the clock moves by it, and it ends when the test calls tick()
    sleep: (ms, signal) =>
      new Promise((resolve) => {
        pauses.push(ms);
        t += ms;
        wake = resolve;
        signal.addEventListener("abort", () => resolve(), { once: true });
      }),
  });
  const current = new Map<string, FakeProcess>();
  const failNext = new Map<string, number>();
  const add = (name: string, stopOrder = 0) => {
    const first = new FakeProcess(events, name);
    current.set(name, first);
    const spec: Supervised = {
      name,
      kind: "shard-node",
      address: `127.0.0.1:${7000 + current.size}`,
      stopOrder,
      start: async () => {
        const fails = failNext.get(name) ?? 0;
        if (fails > 0) {
          failNext.set(name, fails - 1);
          throw new Error("did not come up");
        }
        const p = new FakeProcess(events, name);
        current.set(name, p);
        events.push(`start ${name}`);
        return p;
      },
    };
    supervisor.watch(spec, first);
  };
  const settle = () => new Promise((r) => setTimeout(r, 5));
  const tick = async () => {
    await settle();
    wake?.();
    wake = undefined;
    await settle();
  };
  return {
    supervisor,
    pauses,
    events,
    current,
    failNext,
    add,
    tick,
    settle,
    view: (name: string) => supervisor.processes().find((p) => p.name === name)!,
    advance: (ms: number) => void (t += ms),
  };
}

describe("deploy > supervisor", () => {
  it("restarts a process that died after the policy's pause, counting restarts, and leaves the others running", async () => {
    const h = harness();
    h.add("shard-0");
    h.add("router");
    const router = h.current.get("router")!;
    const firstPid = h.current.get("shard-0")!.pid;
    h.current.get("shard-0")!.die();
    await h.settle();
    expect(h.view("shard-0")).toMatchObject({ state: "restarting", pid: null, lastExit: "killed by SIGKILL", nextStartAtMs: 100 });
    await h.tick();
    expect(h.pauses).toEqual([100]);
    expect(h.view("shard-0")).toMatchObject({ state: "up", restarts: 1, nextStartAtMs: null });
    expect(h.view("shard-0").pid).not.toBe(firstPid);
    expect(h.current.get("router")).toBe(router);
    expect(h.view("router")).toMatchObject({ state: "up", restarts: 0, pid: router.pid });

    h.current.get("shard-0")!.die(); // dies again soon: a longer pause
    await h.tick();
    h.current.get("shard-0")!.die();
    await h.tick();
    expect(h.pauses).toEqual([100, 200, 400]);
    expect(h.view("shard-0").restarts).toBe(3);
    h.advance(10_000); // up long enough: back to the first pause
    h.current.get("shard-0")!.die();
    await h.tick();
    expect(h.pauses.at(-1)).toBe(100);
    await h.supervisor.stop();
  });

  it("tries a failed start again after longer pauses until one comes up", async () => {
    const h = harness();
    h.add("redis-0");
    h.failNext.set("redis-0", 2);
    h.current.get("redis-0")!.die();
    for (let i = 0; i < 3; i++) await h.tick();
    expect(h.pauses).toEqual([100, 200, 400]);
    expect(h.view("redis-0")).toMatchObject({ state: "up", restarts: 1 });
    expect(h.events).toEqual(["start redis-0"]);
    await h.supervisor.stop();
  });

  it("restarts nothing once stopping, and stops every process in its stop order", async () => {
    const h = harness();
    h.add("kafka", 3);
    h.add("redis-0", 2);
    h.add("shard-0", 0);
    h.add("router", 0);
    h.current.get("shard-0")!.die(); // waiting for its restart when Ctrl-C comes
    await h.settle();
    await h.supervisor.stop();
    h.current.get("kafka")!.die(); // dying during shutdown: not restarted either
    await h.tick();
    expect(h.events).toEqual(["stop router", "stop redis-0", "stop kafka"]);
    expect(h.supervisor.processes().map((p) => p.state)).toEqual(["stopped", "stopped", "stopped", "stopped"]);
    expect(h.pauses).toEqual([100]);
  });
});
