// Plain HTTP for the gateway's tests (node:http: any method and header, Origin included): one-shot
// requests with their status, headers and JSON body, and Server-Sent Events read as they come.
import { request, type IncomingHttpHeaders, type IncomingMessage } from "node:http";

export interface HttpAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  /** The body parsed as JSON when it is JSON, else its text. */
  body: unknown;
}

/** One request; resolves with the whole answer. */
export function http(url: string, o: { method?: string; headers?: Record<string, string> } = {}): Promise<HttpAnswer> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: o.method ?? "GET", headers: o.headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8");
        const json = String(res.headers["content-type"] ?? "").startsWith("application/json");
        resolve({ status: res.statusCode!, headers: res.headers, body: json ? JSON.parse(text) : text });
      });
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end();
  });
}

/** GET of a JSON endpoint that must answer 200: its body. */
export async function getJson(url: string, headers: Record<string, string> = {}): Promise<unknown> {
  const a = await http(url, { headers });
  if (a.status !== 200) throw new Error(`GET ${url}: ${a.status} ${JSON.stringify(a.body)}`);
  return a.body;
}

export interface SseEvent {
  id: string;
  event: string;
  data: unknown;
}

/** An open event stream: its events in order, as they arrive. */
export class EventStream {
  private readonly events: SseEvent[] = [];
  private waiters: Array<() => void> = [];
  private buffer = "";
  ended = false;

  private constructor(
    readonly res: IncomingMessage,
    private readonly close_: () => void,
  ) {
    res.setEncoding("utf8");
    res.on("data", (chunk: string) => {
      this.buffer += chunk;
      for (let i; (i = this.buffer.indexOf("\n\n")) >= 0; ) {
        const frame = this.buffer.slice(0, i);
        this.buffer = this.buffer.slice(i + 2);
        const fields = new Map<string, string>();
        for (const line of frame.split("\n"))
          if (!line.startsWith(":")) fields.set(line.slice(0, line.indexOf(":")), line.slice(line.indexOf(":") + 1).trimStart());
        if (fields.has("data"))
          this.events.push({ id: fields.get("id") ?? "", event: fields.get("event") ?? "message", data: JSON.parse(fields.get("data")!) });
      }
      this.wake();
    });
    res.on("end", () => ((this.ended = true), this.wake()));
    res.on("error", () => ((this.ended = true), this.wake()));
  }

  /** Opens `url`: the stream when it answered 200, else the answer (status and JSON body). */
  static open(url: string, headers: Record<string, string> = {}): Promise<EventStream | HttpAnswer> {
    return new Promise((resolve, reject) => {
      const req = request(url, { headers: { Accept: "text/event-stream", ...headers } }, (res) => {
        if (res.statusCode === 200) return resolve(new EventStream(res, () => req.destroy()));
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () =>
          resolve({ status: res.statusCode!, headers: res.headers, body: JSON.parse(Buffer.concat(chunks).toString("utf8")) }),
        );
      });
      req.on("error", reject);
      req.end();
    });
  }

  /** The next event not taken yet; rejects after `timeoutMs` without one, or when the stream ended. */
  async next(timeoutMs: number): Promise<SseEvent> {
    const deadline = Date.now() + timeoutMs;
    while (this.events.length === 0) {
      if (this.ended) throw new Error("the stream ended");
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no event within ${timeoutMs} ms`);
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, left);
        this.waiters.push(() => (clearTimeout(t), resolve()));
      });
    }
    return this.events.shift()!;
  }

  /** Events until one satisfies `done` (returned), within `timeoutMs` in all. */
  async until(done: (e: SseEvent) => boolean, timeoutMs: number): Promise<SseEvent> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const e = await this.next(Math.max(1, deadline - Date.now()));
      if (done(e)) return e;
    }
  }

  close(): void {
    this.close_();
  }

  private wake(): void {
    const w = this.waiters;
    this.waiters = [];
    for (const f of w) f();
  }
}
