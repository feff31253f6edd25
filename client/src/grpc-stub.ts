/**
 * The one adapter between protobuf-es service descriptors and grpc-js.
 *
 * protoc-gen-es v2 emits `GenService` descriptors; grpc-js wants a ServiceDefinition of paths and
 * (de)serializers. `methodDefinition` builds one method's from its descriptor (toBinary/fromBinary,
 * @ladder/proto/codec); the servers' side (@ladder/platform/grpc-adapter) starts from it too, so
 * the cluster and its clients share this one copy. `createClient` makes a typed stub over it: a promise per unary
 * method, a grpc-js readable stream per server-streaming one. A stub adds nothing else — no default
 * deadline, no retries: LadderClient (ladder-client.ts) does. Unary and server-streaming methods
 * only.
 */
import * as grpc from "@grpc/grpc-js";
import { create, type MessageInitShape, type MessageShape } from "@bufbuild/protobuf";
import type { GenService, GenServiceMethods } from "@bufbuild/protobuf/codegenv2";
import { methodDefinition, serviceDefinition } from "@ladder/proto/codec";

export { methodDefinition, serviceDefinition } from "@ladder/proto/codec";

/** Per-call options of a stub. */
export interface CallOptions {
  /** Deadline from now, in ms. */
  timeoutMs?: number;
  /** Deadline as a time (ms since the epoch); wins over timeoutMs. */
  deadline?: number;
  /** Sent as they are (the stub's token is added unless they carry an authorization). */
  metadata?: grpc.Metadata;
  /** Aborting it cancels the call, which then fails with CANCELLED. */
  signal?: AbortSignal;
}

/** A promise-based stub: one method per rpc. */
export type ServiceClient<S extends GenServiceMethods> = {
  [K in keyof S]: S[K]["methodKind"] extends "unary"
    ? (req: MessageInitShape<S[K]["input"]>, options?: CallOptions) => Promise<MessageShape<S[K]["output"]>>
    : (req: MessageInitShape<S[K]["input"]>, options?: CallOptions) => grpc.ClientReadableStream<MessageShape<S[K]["output"]>>;
} & { close(): void; raw: grpc.Client };

/** The stub type of a generated service descriptor: ClientOf<typeof LeaderboardService>. */
export type ClientOf<D> = D extends GenService<infer S> ? ServiceClient<S> : never;

type RawCall = (...args: unknown[]) => grpc.ClientUnaryCall | grpc.ClientReadableStream<unknown>;

/**
 * A typed stub for `service` at `address` (host:port). `options.channelOverride` shares one
 * grpc-js channel (one connection) between the stubs of several services at one address.
 */
export function createClient<S extends GenServiceMethods>(
  service: GenService<S>,
  address: string,
  credentials = grpc.credentials.createInsecure(),
  options: grpc.ClientOptions = {},
  /** Bearer token sent with every call: `authorization: Bearer <token>`. */
  token?: string,
): ServiceClient<S> {
  const Ctor = grpc.makeGenericClientConstructor(serviceDefinition(service), service.typeName);
  const raw = new Ctor(address, credentials, options);
  const client: Record<string, unknown> = { close: () => raw.close(), raw };
  for (const m of service.methods) {
    const call = (raw as unknown as Record<string, RawCall>)[m.localName]!.bind(raw);
    client[m.localName] =
      m.methodKind === "unary"
        ? (req: MessageInitShape<typeof m.input>, opts: CallOptions = {}) =>
            new Promise((resolve, reject) => {
              const done = cancelOnAbort(
                opts.signal,
                call(create(m.input, req), metadataFor(opts, token), grpcOptions(opts), (err: Error | null, res: unknown) => {
                  done();
                  if (err) reject(err);
                  else resolve(res);
                }),
              );
            })
        : (req: MessageInitShape<typeof m.input>, opts: CallOptions = {}) => {
            const stream = call(create(m.input, req), metadataFor(opts, token), grpcOptions(opts)) as grpc.ClientReadableStream<unknown>;
            stream.once("close", cancelOnAbort(opts.signal, stream));
            return stream;
          };
  }
  return client as ServiceClient<S>;
}

/** Sets `authorization: Bearer <token>` on `metadata`. */
export function withBearer(metadata: grpc.Metadata, token: string): grpc.Metadata {
  metadata.set("authorization", `Bearer ${token}`);
  return metadata;
}

/** The call's metadata: a copy of the caller's (grpc-js may keep a reference) with the stub's token unless it has one. */
function metadataFor(opts: CallOptions, token: string | undefined): grpc.Metadata {
  const metadata = opts.metadata?.clone() ?? new grpc.Metadata();
  return token !== undefined && metadata.get("authorization").length === 0 ? withBearer(metadata, token) : metadata;
}

function grpcOptions(opts: CallOptions): grpc.CallOptions {
  if (opts.deadline !== undefined) return { deadline: opts.deadline };
  return opts.timeoutMs ? { deadline: Date.now() + opts.timeoutMs } : {};
}

/** Cancels `call` when `signal` aborts; returns the clean-up to run once the call has ended. */
function cancelOnAbort(signal: AbortSignal | undefined, call: { cancel(): void }): () => void {
  if (!signal) return () => {};
  const cancel = () => call.cancel();
  if (signal.aborted) queueMicrotask(cancel);
  else signal.addEventListener("abort", cancel, { once: true });
  return () => signal.removeEventListener("abort", cancel);
}
