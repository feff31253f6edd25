import { connect, createServer, type Server, type Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { linkProxy, type LinkProxy } from "./link-proxy.js";

const undo: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  while (undo.length) await undo.pop()!();
});

/** An echo server on loopback and a proxy to it. */
async function echoBehindProxy(): Promise<{ proxy: LinkProxy; accepted: () => number }> {
  let accepted = 0;
  const server: Server = createServer((s) => {
    accepted++;
    s.on("error", () => {});
    s.pipe(s);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const proxy = await linkProxy("test", "127.0.0.1", `127.0.0.1:${(server.address() as { port: number }).port}`);
  undo.push(() => new Promise((r) => server.close(r)));
  undo.push(() => proxy.close());
  return { proxy, accepted: () => accepted };
}

async function client(proxy: LinkProxy): Promise<{ socket: Socket; received: () => string }> {
  const [host, port] = proxy.address.split(":");
  const socket = connect(Number(port), host);
  let got = "";
  socket.on("data", (d) => (got += d.toString()));
  socket.on("error", () => {});
  await new Promise((r) => socket.once("connect", r));
  undo.push(async () => void socket.destroy());
  return { socket, received: () => got };
}

const until = async (cond: () => boolean, ms = 2000) => {
  const deadline = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error("condition not met");
    await new Promise((r) => setTimeout(r, 5));
  }
};

describe("partitions > link proxy", () => {
  it("forwards both ways, and a delay holds each chunk back in order", async () => {
    const { proxy } = await echoBehindProxy();
    const c = await client(proxy);
    c.socket.write("a");
    await until(() => c.received() === "a");
    proxy.delay(150);
    const sentAt = Date.now();
    c.socket.write("b");
    c.socket.write("c");
    await until(() => c.received() === "abc");
    expect(Date.now() - sentAt).toBeGreaterThanOrEqual(140); // each way delayed: at least one delay passed
  });

  it("a partition passes nothing, not even a new connection, and its heal delivers what was buffered in order", async () => {
    const { proxy, accepted } = await echoBehindProxy();
    const c = await client(proxy);
    proxy.partition(true);
    c.socket.write("1");
    c.socket.write("2");
    const late = await client(proxy);
    late.socket.write("x");
    await new Promise((r) => setTimeout(r, 100));
    expect([c.received(), late.received(), accepted()]).toEqual(["", "", 1]);
    proxy.partition(false);
    await until(() => c.received() === "12" && late.received() === "x");
    expect(accepted()).toBe(2);
  });

  it("a stall heals by itself; a reset closes every connection", async () => {
    const { proxy } = await echoBehindProxy();
    const c = await client(proxy);
    const healed = proxy.stall(100);
    c.socket.write("s");
    await new Promise((r) => setTimeout(r, 30));
    expect(c.received()).toBe("");
    await healed;
    await until(() => c.received() === "s");
    const closed = new Promise((r) => c.socket.once("close", r));
    proxy.reset();
    await closed;
  });
});
