// One network link of the partition harness as a TCP proxy that fails the way networks do, since this
// kernel has no `tc netem`. A client host reaches a server host only through its link's proxy (the
// client's /etc/hosts names the proxy's address, see cluster.ts), so each link fails on its own.
//
// Faults, and how faithful they are:
// - delay(ms): every chunk, both ways, is forwarded ms after it arrived, order kept (a slow link);
// - partition(true): nothing passes either way, in order buffered, as a cut cable while TCP still
//   retransmits: connections stay open, a peer's close waits too, a new connection is accepted but
//   reaches the server only when the link heals; peers learn of the cut only from their own timeouts.
//   partition(false) heals: what was buffered flows, as TCP's retransmissions would deliver it;
// - stall(ms): a partition that heals by itself after ms (a link that hangs and recovers);
// - reset(): every connection is destroyed at once (both peers see a reset).
// The clearly-unfaithful part: a peer's close reaches the other side once the link passes again
// (real TCP would eventually time out on its own). Costs: a copy of each chunk while it waits.
import { connect, createServer, type Socket } from "node:net";

export interface LinkProxy {
  readonly name: string;
  /** host:port the proxy listens on. */
  readonly address: string;
  delay(ms: number): void;
  partition(on: boolean): void;
  stall(ms: number): Promise<void>;
  reset(): void;
  /** Connections accepted so far (for the report). */
  readonly accepted: number;
  close(): Promise<void>;
}

type Item = { at: number; chunk?: Buffer; end?: true };

/** One direction of one connection: a queue released in order once due and the link passes. */
class Lane {
  private readonly items: Item[] = [];
  private timer: NodeJS.Timeout | undefined;
  constructor(
    private readonly link: { delayMs: number; cut: boolean },
    private readonly out: () => Socket | undefined,
  ) {}
  push(item: Omit<Item, "at">): void {
    this.items.push({ ...item, at: Date.now() + this.link.delayMs });
    this.pump();
  }
  pump(): void {
    const out = this.out();
    if (this.timer || this.link.cut || !out) return;
    while (this.items.length) {
      const head = this.items[0]!;
      const wait = head.at - Date.now();
      if (wait > 0) {
        this.timer = setTimeout(() => {
          this.timer = undefined;
          this.pump();
        }, wait);
        return;
      }
      this.items.shift();
      if (head.end) out.destroy();
      else out.write(head.chunk!);
    }
  }
  clear(): void {
    clearTimeout(this.timer);
    this.items.length = 0;
  }
}

/** A proxy on `listen` (host, port 0 picks one) to `target` (host:port). */
export async function linkProxy(name: string, listenHost: string, target: string, listenPort = 0): Promise<LinkProxy> {
  const colon = target.lastIndexOf(":");
  const [host, port] = [target.slice(0, colon), Number(target.slice(colon + 1))];
  const link = { delayMs: 0, cut: false };
  const conns = new Set<{ down: Socket; up?: Socket; toUp: Lane; toDown: Lane; open(): void; destroy(): void }>();
  let accepted = 0;
  let stallTimer: NodeJS.Timeout | undefined;

  const server = createServer((down) => {
    accepted++;
    const c = {
      down,
      up: undefined as Socket | undefined,
      toUp: undefined as unknown as Lane,
      toDown: undefined as unknown as Lane,
      open() {
        if (c.up || link.cut) return;
        const up = connect(port, host);
        c.up = up;
        up.on("error", () => {});
        up.on("data", (chunk: Buffer) => c.toDown.push({ chunk: Buffer.from(chunk) }));
        up.on("close", () => {
          c.toDown.push({ end: true });
          if (down.destroyed) conns.delete(c);
        });
        c.toUp.pump();
      },
      destroy() {
        c.toUp.clear();
        c.toDown.clear();
        down.destroy();
        c.up?.destroy();
        conns.delete(c);
      },
    };
    c.toUp = new Lane(link, () => c.up);
    c.toDown = new Lane(link, () => down);
    conns.add(c);
    down.on("error", () => {});
    down.on("data", (chunk: Buffer) => c.toUp.push({ chunk: Buffer.from(chunk) }));
    down.on("close", () => {
      c.toUp.push({ end: true });
      if (!c.up && !link.cut) c.destroy();
      else if (c.up?.destroyed) conns.delete(c);
    });
    c.open();
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(listenPort, listenHost, resolve);
  });
  const heal = () => {
    link.cut = false;
    for (const c of conns) {
      c.open();
      c.toUp.pump();
      c.toDown.pump();
    }
  };
  return {
    name,
    address: `${listenHost}:${(server.address() as { port: number }).port}`,
    get accepted() {
      return accepted;
    },
    delay(ms) {
      link.delayMs = ms;
    },
    partition(on) {
      clearTimeout(stallTimer);
      if (on) link.cut = true;
      else heal();
    },
    stall(ms) {
      link.cut = true;
      return new Promise((resolve) => {
        stallTimer = setTimeout(() => {
          heal();
          resolve();
        }, ms);
      });
    },
    reset() {
      for (const c of [...conns]) c.destroy();
    },
    close() {
      clearTimeout(stallTimer);
      for (const c of [...conns]) c.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
