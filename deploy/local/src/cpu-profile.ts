// A CPU profile of a running Node process of the local cluster, without restarting it (`npm run
// cluster -- profile <name>`, control.ts). SIGUSR1 makes a Node process open its inspector on
// 127.0.0.1:9229; this connects to it over the DevTools protocol (Node's own WebSocket client),
// checks that the inspector it reached belongs to that process (another one may hold the port), runs
// the sampling profiler for the seconds asked, writes the profile (a .cpuprofile: Chrome DevTools'
// Performance panel and speedscope open it) and closes the inspector again. The process serves
// throughout; sampling costs it a few percent while it runs.
import { writeFileSync } from "node:fs";

export const INSPECTOR_PORT = 9229;
/** The profiler's sampling interval, µs (Node's default is 1,000). */
const SAMPLING_US = 200;

/** The parts of a DevTools CPU profile read here. */
export interface CpuProfile {
  nodes: Array<{ id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children?: number[] }>;
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

/** Profiles process `pid` for `seconds`, writes the profile to `out` and returns it. */
export async function profileProcess(pid: number, seconds: number, out: string): Promise<CpuProfile> {
  process.kill(pid, "SIGUSR1");
  const target = await inspectorTarget(pid);
  const session = await DevTools.connect(target);
  const { result } = (await session.send("Runtime.evaluate", { expression: "process.pid" })) as { result: { value: number } };
  if (result.value !== pid) {
    await session.close(); // its inspector is its own business: left open
    throw new Error(`the inspector on 127.0.0.1:${INSPECTOR_PORT} belongs to process ${result.value}, not ${pid}: close that one's first`);
  }
  try {
    await session.send("Profiler.enable");
    await session.send("Profiler.setSamplingInterval", { interval: SAMPLING_US });
    await session.send("Profiler.start");
    await new Promise((r) => setTimeout(r, seconds * 1000));
    const { profile } = (await session.send("Profiler.stop")) as { profile: CpuProfile };
    writeFileSync(out, JSON.stringify(profile));
    return profile;
  } finally {
    // the inspector closes with the session's last message; no answer comes back
    session.post("Runtime.evaluate", { expression: "process.getBuiltinModule('node:inspector').close()" });
    await session.close();
  }
}

/** What a profile says at a glance: its samples, the percentage not idle (rounded), and the `n` functions with the most samples of their own, each with its share of the samples not idle. */
export function summary(
  profile: CpuProfile,
  n: number,
): { samples: number; busyPercent: number; top: Array<{ name: string; where: string; share: number }> } {
  const byNode = new Map(profile.nodes.map((node) => [node.id, node]));
  const counts = new Map<string, { name: string; where: string; samples: number }>();
  let busy = 0;
  for (const id of profile.samples) {
    const frame = byNode.get(id)?.callFrame;
    if (!frame || frame.functionName === "(idle)") continue;
    busy++;
    const name = frame.functionName || "(anonymous)";
    const where = frame.url ? `${frame.url.replace(/^file:\/\//, "")}:${frame.lineNumber + 1}` : "";
    const key = `${name} ${where}`;
    const c = counts.get(key) ?? { name, where, samples: 0 };
    c.samples++;
    counts.set(key, c);
  }
  const top = [...counts.values()]
    .sort((x, y) => y.samples - x.samples)
    .slice(0, n)
    .map((c) => ({ name: c.name, where: c.where, share: c.samples / busy }));
  const samples = profile.samples.length;
  return { samples, busyPercent: samples ? Math.round((100 * busy) / samples) : 0, top };
}

/** The WebSocket address of the inspector `pid` opened, once it listens (up to 5 s). */
async function inspectorTarget(pid: number): Promise<string> {
  const until = Date.now() + 5_000;
  for (;;) {
    try {
      const targets = (await (await fetch(`http://127.0.0.1:${INSPECTOR_PORT}/json/list`)).json()) as Array<{
        webSocketDebuggerUrl?: string;
      }>;
      const url = targets.find((t) => t.webSocketDebuggerUrl)?.webSocketDebuggerUrl;
      if (url) return url;
    } catch {
      // not listening yet
    }
    if (Date.now() > until) throw new Error(`process ${pid} opened no inspector on 127.0.0.1:${INSPECTOR_PORT} within 5 s of SIGUSR1`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** One DevTools protocol session: requests answered by id. */
class DevTools {
  private next = 1;
  private readonly waiting = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>();

  private constructor(private readonly ws: WebSocket) {
    ws.addEventListener("message", (e) => {
      const m = JSON.parse(String(e.data)) as { id?: number; result?: unknown; error?: { message: string } };
      const w = m.id === undefined ? undefined : this.waiting.get(m.id);
      if (!w) return;
      this.waiting.delete(m.id!);
      if (m.error) w.reject(new Error(m.error.message));
      else w.resolve(m.result);
    });
    ws.addEventListener("close", () => {
      for (const w of this.waiting.values()) w.reject(new Error("the inspector closed the connection"));
      this.waiting.clear();
    });
  }

  static connect(url: string): Promise<DevTools> {
    const ws = new WebSocket(url);
    return new Promise((resolve, reject) => {
      ws.addEventListener("open", () => resolve(new DevTools(ws)), { once: true });
      ws.addEventListener("error", () => reject(new Error(`cannot connect to the inspector at ${url}`)), { once: true });
    });
  }

  send(method: string, params: Record<string, unknown> = {}): Promise<unknown> {
    const id = this.next++;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      this.ws.send(JSON.stringify({ id, method, params }));
    });
  }

  /** A request whose answer is not awaited. */
  post(method: string, params: Record<string, unknown> = {}): void {
    this.ws.send(JSON.stringify({ id: this.next++, method, params }));
  }

  close(): Promise<void> {
    if (this.ws.readyState === WebSocket.CLOSED) return Promise.resolve();
    return new Promise((resolve) => {
      this.ws.addEventListener("close", () => resolve(), { once: true });
      this.ws.close();
      setTimeout(resolve, 1_000); // the inspector may be gone already
    });
  }
}
