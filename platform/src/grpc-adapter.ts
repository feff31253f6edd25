/**
 * The one adapter between protobuf-es service descriptors and grpc-js.
 *
 * protoc-gen-es v2 emits `GenService` descriptors; grpc-js wants a ServiceDefinition of
 * paths and (de)serializers. The method definitions are @ladder/proto/codec's (one copy for the
 * cluster and its clients; the typed client stubs, `createClient`, are @ladder/client/grpc-stub's);
 * this file adds the servers' side: it registers typed handlers
 * that return plain objects and converts whatever a handler throws through `toServiceError`
 * (the only such boundary). Unary and server-streaming methods only.
 *
 * Request bytes that are not a valid message (bad wire format, invalid UTF-8 in a string
 * field) answer INVALID_ARGUMENT, not grpc-js's INTERNAL: the server's deserializer hands
 * the handler an Undecodable marker instead of throwing. A `guard` (authentication) runs
 * before every handler, inside the same error boundary.
 *
 * A server-streaming handler's context tells what the caller has not taken yet (StreamContext):
 * the bytes of messages sent that HTTP/2 flow control holds back (each message's write completes
 * once the transport took it), so that a handler can wait for a slow caller instead of piling up
 * messages, and give up on one that does not read. A stream that fails with RESOURCE_EXHAUSTED while
 * messages of it are still unsent is reset at once (RST_STREAM ENHANCE_YOUR_CALM, which the caller's
 * grpc-js reports as RESOURCE_EXHAUSTED): its status would otherwise wait behind those messages,
 * and keep them in memory, for as long as the caller does not read. The reset reaches the call's
 * HTTP/2 stream through a grpc-js internal (`call.call.stream`, grpc-js 1.14; http2StreamOf), checked
 * by test/stream-limits.int.test.ts.
 *
 * A call's metadata is bounded: above MAX_METADATA_BYTES (keys and values, as gRPC counts them)
 * it is refused with RESOURCE_EXHAUSTED naming the limit before any guard or handler runs. grpc-js
 * servers take any metadata HTTP/2 delivers (they ignore `grpc.max_metadata_size`); headers beyond
 * what the HTTP/2 layer decodes (about 64 KB once HPACK-coded) are refused there at once, with
 * RST_STREAM (grpc-js clients report INTERNAL).
 *
 * Every call a handler answers is counted here, by service, method and status code, with its
 * latency (grpcServerMetrics: ladder_grpc_server_handled_total and
 * ladder_grpc_server_handling_seconds). `listen` adds server reflection (reflection.ts) over
 * the services added with `addService`.
 */
import * as http2 from "node:http2";
import * as grpc from "@grpc/grpc-js";
import {
  create,
  toBinary,
  type DescMessage,
  type DescMethod,
  type DescService,
  type Message,
  type MessageInitShape,
  type MessageShape,
} from "@bufbuild/protobuf";
import type { GenService, GenServiceMethods } from "@bufbuild/protobuf/codegenv2";
import { methodDefinition } from "@ladder/proto/codec";
import { LadderError, invalidArgument } from "@ladder/model/errors";
import { toServiceError } from "./service-error.js";
import type { Logger } from "./logger.js";
import { bound, Gauge, HotCounter, HotHistogram, LATENCY_BUCKETS, metricSet, secondsSince } from "./metrics.js";
import { addReflection } from "./reflection.js";

/** What a handler knows of its call. */
export interface CallContext {
  readonly metadata: grpc.Metadata;
  /** The caller's deadline (ms since epoch), or Infinity. */
  readonly deadlineMs: number;
  /** Aborted when the caller cancels or the call ends. */
  readonly signal: AbortSignal;
  readonly peer: string;
}

/** What a server-streaming handler knows of its call. */
export interface StreamContext extends CallContext {
  /** Bytes of the messages sent that the transport has not taken yet (held back by the caller's flow control). */
  readonly unsentBytes: number;
  /** Resolves true once unsentBytes is at most `bytes`; false when `ms` passed first or the call ended. */
  drained(bytes: number, ms: number): Promise<boolean>;
}

type Method<S extends GenServiceMethods, K extends keyof S> = S[K];
type In<M extends GenServiceMethods[string]> = MessageShape<M["input"]>;
type Out<M extends GenServiceMethods[string]> = MessageInitShape<M["output"]>;

/** Handlers of a service, typed from its descriptor. */
export type ServiceImpl<S extends GenServiceMethods> = {
  [K in keyof S]: Method<S, K>["methodKind"] extends "server_streaming"
    ? (req: In<S[K]>, send: (msg: Out<S[K]>) => void, ctx: StreamContext) => Promise<void>
    : (req: In<S[K]>, ctx: CallContext) => Promise<Out<S[K]>>;
};

/** What a server's deserializer returns for bytes that are not a valid request. */
class Undecodable {
  constructor(readonly reason: string) {}
}

/** The most metadata a call may carry, bytes of keys and values (gRPC's own default soft limit is 8 KiB; tokens and ids fit many times over). */
export const MAX_METADATA_BYTES = 16 * 1024; // 16 KiB

/** Throws RESOURCE_EXHAUSTED when `metadata` holds more than MAX_METADATA_BYTES. */
function checkMetadataSize(metadata: grpc.Metadata): void {
  let bytes = 0;
  for (const [key, values] of Object.entries(metadata.toJSON()))
    for (const value of values) bytes += key.length + (typeof value === "string" ? Buffer.byteLength(value) : value.length);
  if (bytes > MAX_METADATA_BYTES)
    throw new LadderError(
      grpc.status.RESOURCE_EXHAUSTED,
      `request metadata is ${bytes} bytes, above the limit of ${MAX_METADATA_BYTES} bytes`,
    );
}

/** Checks a call before its handler runs (e.g. authentication); throws to refuse it. */
export type Guard = (method: DescMethod, ctx: CallContext) => void;

/** Responses encoded once (encodeOnce), by message object. */
const encoded = new WeakMap<object, Buffer>();

/**
 * Encodes a response message now, once: every later answer with this same object sends these
 * bytes (a page served to many callers, e.g. the router's top cache). The message must never
 * change after this call. `bytes`: its encoding when the caller made it already (a hand-made
 * encoder's, which must equal toBinary's: router/src/read/rank-response.ts).
 */
export function encodeOnce<T extends Message>(schema: DescMessage, msg: T, bytes?: Buffer): T {
  encoded.set(msg, bytes ?? Buffer.from(toBinary(schema, msg as never)));
  return msg;
}

/**
 * The grpc-js ServiceDefinition a server serves for a protobuf-es service descriptor: the
 * client's method definitions, with requests that do not decode handed to the handler as
 * Undecodable and responses encoded once sent as those bytes.
 */
export function serviceDefinition(service: DescService): grpc.ServiceDefinition {
  const def: Record<string, grpc.MethodDefinition<Message, Message>> = {};
  for (const m of service.methods) {
    const base = methodDefinition(m);
    def[m.localName] = {
      ...base,
      requestDeserialize: (buf: Buffer) => {
        try {
          return base.requestDeserialize(buf);
        } catch (err) {
          return new Undecodable((err as Error).message) as unknown as Message;
        }
      },
      responseSerialize: (msg: Message) => encoded.get(msg) ?? base.responseSerialize(msg),
    };
  }
  return def as grpc.ServiceDefinition;
}

/** Bytes of server-stream messages written that the transport has not taken yet, over every open stream of this process. */
let unsentTotal = 0;

/** Calls answered by this process's servers, by service, method and status code; what server streams hold unsent. */
export const grpcServerMetrics = metricSet((registry) => {
  const labelNames = ["grpc_service", "grpc_method", "grpc_code"] as const;
  return {
    unsent: new Gauge({
      name: "ladder_grpc_server_stream_unsent_bytes",
      help: "bytes of server-stream messages written that callers have not taken yet (held back by their HTTP/2 flow control), over every open stream",
      registers: [registry],
      collect() {
        this.set(unsentTotal);
      },
    }),
    handled: new HotCounter({
      name: "ladder_grpc_server_handled_total",
      help: "rpcs answered, by service, method and status code",
      labelNames,
      registers: [registry],
    }),
    seconds: new HotHistogram({
      name: "ladder_grpc_server_handling_seconds",
      help: "time from an rpc's arrival to its status (a server-streaming rpc: its whole stream), by service, method and status code",
      labelNames,
      buckets: LATENCY_BUCKETS,
      registers: [registry],
    }),
  };
});

/** Records one answered call of `m`: its status code and the time since `startedAt` (performance.now()). */
type RecordCall = (call: { cancelled: boolean }, code: grpc.status, startedAt: number) => void;

function recorder(m: DescMethod): RecordCall {
  const { handled, seconds } = grpcServerMetrics();
  const children = bound((code) => ({
    handled: handled.labels(m.parent.typeName, m.name, code),
    seconds: seconds.labels(m.parent.typeName, m.name, code),
  }));
  return (call, code, startedAt) => {
    const c = children(grpc.status[call.cancelled ? grpc.status.CANCELLED : code] ?? String(code));
    c.handled.inc();
    c.seconds.observe(secondsSince(startedAt));
  };
}

/** The services added to each server with addService, for reflection. */
const served = new WeakMap<grpc.Server, DescService[]>();

/** Registers `impl` for `service` on `server`. */
export function addService<S extends GenServiceMethods>(
  server: grpc.Server,
  service: GenService<S>,
  impl: ServiceImpl<S>,
  log: Logger,
  guard: Guard = () => {},
): void {
  const handlers: grpc.UntypedServiceImplementation = {};
  for (const m of service.methods) {
    const fn = (impl as Record<string, (...args: never[]) => Promise<unknown>>)[m.localName];
    if (!fn) throw new Error(`no handler for ${service.typeName}.${m.name}`);
    const checked = (req: unknown, ctx: CallContext): void => {
      checkMetadataSize(ctx.metadata);
      guard(m, ctx);
      if (req instanceof Undecodable) throw invalidArgument(`request is not a valid ${m.input.typeName}: ${req.reason}`);
    };
    const record = recorder(m);
    handlers[m.localName] =
      m.methodKind === "server_streaming" ? streamHandler(m, fn, checked, log, record) : unaryHandler(m, fn, checked, log, record);
  }
  server.addService(serviceDefinition(service), handlers);
  served.set(server, [...(served.get(server) ?? []), service]);
}

type Check = (req: unknown, ctx: CallContext) => void;

function unaryHandler(
  m: DescMethod,
  fn: (...args: never[]) => Promise<unknown>,
  check: Check,
  log: Logger,
  record: RecordCall,
): grpc.handleUnaryCall<unknown, unknown> {
  return (call, callback) => {
    const startedAt = performance.now();
    const ctx = contextOf(call);
    Promise.resolve()
      .then(() => {
        check(call.request, ctx);
        return (fn as (req: unknown, ctx: CallContext) => Promise<unknown>)(call.request, ctx);
      })
      .then(
        (res) => {
          callback(null, create(m.output, res as MessageInitShape<typeof m.output>));
          record(call, grpc.status.OK, startedAt);
        },
        (err: unknown) => {
          const e = reportError(log, m, err);
          callback(e);
          record(call, e.code, startedAt);
        },
      );
  };
}

function streamHandler(
  m: DescMethod,
  fn: (...args: never[]) => Promise<unknown>,
  check: Check,
  log: Logger,
  record: RecordCall,
): grpc.handleServerStreamingCall<unknown, unknown> {
  return (call) => {
    const startedAt = performance.now();
    const out = unsentCounter(call);
    // the counter's getters kept as getters (Object.assign would copy their values once)
    const ctx = Object.defineProperties(contextOf(call), Object.getOwnPropertyDescriptors(out.context)) as StreamContext;
    const send = (msg: unknown) => out.write(m.output, msg);
    Promise.resolve()
      .then(() => {
        check(call.request, ctx);
        return (fn as (req: unknown, send: (msg: unknown) => void, ctx: StreamContext) => Promise<void>)(call.request, send, ctx);
      })
      .then(
        () => {
          call.end();
          record(call, grpc.status.OK, startedAt);
        },
        (err: unknown) => {
          const e = reportError(log, m, err);
          call.emit("error", e); // grpc-js turns it into the status
          // a status behind unsent messages waits for a caller that does not read: reset the stream instead
          if (e.code === grpc.status.RESOURCE_EXHAUSTED && ctx.unsentBytes > 0)
            http2StreamOf(call)?.close(http2.constants.NGHTTP2_ENHANCE_YOUR_CALM);
          record(call, e.code, startedAt);
        },
      );
  };
}

/** A server stream's writes, counting the bytes the transport has not taken yet (StreamContext). */
function unsentCounter(call: grpc.ServerWritableStream<unknown, unknown>): {
  write(schema: DescMessage, msg: unknown): void;
  context: Pick<StreamContext, "unsentBytes" | "drained">;
} {
  let unsent = 0;
  const waiting = new Set<() => void>();
  const context = {
    get unsentBytes() {
      return unsent;
    },
    drained(bytes: number, ms: number): Promise<boolean> {
      if (unsent <= bytes) return Promise.resolve(true);
      return new Promise<boolean>((resolve) => {
        const done = (ok: boolean) => {
          clearTimeout(timer);
          waiting.delete(check);
          call.off("close", closed);
          resolve(ok);
        };
        const check = () => unsent <= bytes && done(true);
        const closed = () => done(false);
        const timer = setTimeout(closed, ms);
        waiting.add(check);
        call.once("close", closed);
      });
    },
  };
  call.once("close", () => {
    unsentTotal -= unsent; // writes whose callbacks will never come (the stream was reset or cancelled)
    unsent = 0;
  });
  return {
    context,
    write(schema, msg) {
      const message = create(schema, msg as MessageInitShape<typeof schema>);
      const bytes = encoded.get(message) ?? Buffer.from(toBinary(schema, message));
      encoded.set(message, bytes); // serialized once: responseSerialize sends these bytes
      unsent += bytes.length;
      unsentTotal += bytes.length;
      call.write(message, () => {
        unsent -= bytes.length;
        unsentTotal -= bytes.length;
        for (const check of [...waiting]) check();
      });
    },
  };
}

/** The HTTP/2 stream under a grpc-js server call (an internal of grpc-js 1.14: the call's base call holds it), if found. */
function http2StreamOf(call: object): http2.Http2Stream | undefined {
  const stream = (call as { call?: { stream?: Partial<http2.Http2Stream> } }).call?.stream;
  return stream && typeof stream.close === "function" && "rstCode" in stream ? (stream as http2.Http2Stream) : undefined;
}

function reportError(log: Logger, m: DescMethod, err: unknown): grpc.ServiceError {
  const e = LadderError.from(err);
  if (e.code === grpc.status.INTERNAL) log.error({ err, method: m.name }, "handler failed");
  else log.debug({ code: e.code, msg: e.message, method: m.name }, "request refused");
  return toServiceError(e) as grpc.ServiceError;
}

/** Why a call's signal aborts; one object, so aborting builds no DOMException (and no stack). */
const CALL_ENDED = new Error("call ended");

/**
 * A call's context. The signal and the peer are made only when a handler asks: the profile of
 * the router under read load showed an AbortController and its DOMException per call costing
 * about 3% of the process; only streaming handlers use the signal.
 */
function contextOf(call: grpc.ServerUnaryCall<unknown, unknown> | grpc.ServerWritableStream<unknown, unknown>): CallContext {
  const deadline = call.getDeadline();
  const deadlineMs = deadline instanceof Date ? deadline.getTime() : Number(deadline);
  let controller: AbortController | undefined;
  return {
    metadata: call.metadata,
    deadlineMs: Number.isFinite(deadlineMs) && deadlineMs > 0 ? deadlineMs : Infinity,
    get signal() {
      if (!controller) {
        const c = (controller = new AbortController());
        const end = () => c.abort(CALL_ENDED);
        call.on("cancelled", end);
        call.on("close", end);
        if (call.cancelled) end();
      }
      return controller.signal;
    },
    get peer() {
      return call.getPeer();
    },
  };
}

/**
 * Adds server reflection over the services added with addService (reflection.ts), binds
 * `server` to host:port (port 0 = any free port) and returns the bound port.
 */
/**
 * A gRPC server as every ladder process serves one: channelz off. grpc-js keeps channelz's per-call
 * and per-socket bookkeeping by default (call counters and timestamps, socket and session trackers)
 * for a channelz service ladder does not serve. What it saves is small: about 1 µs of a router's
 * 47–55 µs per call, within this machine's noise.
 */
export function newServer(options: grpc.ServerOptions = {}): grpc.Server {
  return new grpc.Server({ "grpc.enable_channelz": 0, ...options });
}

export function listen(server: grpc.Server, address: string, credentials = grpc.ServerCredentials.createInsecure()): Promise<number> {
  const services = served.get(server);
  if (services?.length) {
    addReflection(server, services);
    served.delete(server); // once per server
  }
  return new Promise((resolve, reject) => {
    server.bindAsync(address, credentials, (err, port) => (err ? reject(err) : resolve(port)));
  });
}

/** Stops accepting calls, waits up to `graceMs` for calls in flight, then forces. */
export function shutdown(server: grpc.Server, graceMs = 5000): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      server.forceShutdown();
      resolve();
    }, graceMs);
    server.tryShutdown(() => {
      clearTimeout(timer);
      resolve();
    });
  });
}

/** The handlers type of a generated service descriptor: ImplOf<typeof LeaderboardService>. */
export type ImplOf<D> = D extends GenService<infer S> ? ServiceImpl<S> : never;
