/**
 * For the client's tests: a TCP proxy in front of a server that can fail the way networks do.
 * `cut()` destroys every connection (the client sees UNAVAILABLE, "Connection dropped", as when a
 * server dies); `blackhole(true)` forwards the client's bytes but drops the server's, so requests
 * are served and their answers never come — the case idempotent retries exist for.
 */
import { connect, createServer, type Socket } from "node:net";

export interface FaultProxy {
  /** host:port to point the client at. */
  readonly address: string;
  cut(): void;
  blackhole(on: boolean): void;
  close(): Promise<void>;
}

/** A proxy on 127.0.0.1 (a free port) to `target` (host:port). */
export async function faultProxy(target: string): Promise<FaultProxy> {
  const colon = target.lastIndexOf(":");
  const [host, port] = [target.slice(0, colon), Number(target.slice(colon + 1))];
  const sockets = new Set<Socket>();
  let dropAnswers = false;
  const server = createServer((downstream) => {
    const upstream = connect(port, host);
    for (const s of [downstream, upstream]) {
      sockets.add(s);
      s.on("error", () => {}); // a refused or reset side closes both
      s.on("close", () => {
        sockets.delete(s);
        downstream.destroy();
        upstream.destroy();
      });
    }
    downstream.pipe(upstream);
    upstream.on("data", (chunk: Buffer) => {
      if (!dropAnswers) downstream.write(chunk);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    address: `127.0.0.1:${(server.address() as { port: number }).port}`,
    cut: () => sockets.forEach((s) => s.destroy()),
    blackhole: (on) => void (dropAnswers = on),
    close: () => {
      sockets.forEach((s) => s.destroy());
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
