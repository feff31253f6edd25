// The stream helper against real grpc-js servers in this process, reached through a TCP proxy whose
// connections the test cuts: the client sees the transport fail as it does when a server dies
// (UNAVAILABLE, "Connection dropped"). A stream with resume tokens (a service described here, as the
// push streams to come will be) resumes after the last message delivered; RebuildShards, which does
// not resume, surfaces the failure after the progress it delivered.
import * as grpc from "@grpc/grpc-js";
import { create, createFileRegistry, type DescService, type Message } from "@bufbuild/protobuf";
import type { GenService, GenServiceMethods } from "@bufbuild/protobuf/codegenv2";
import { FieldDescriptorProto_Label as Label, FieldDescriptorProto_Type as Type, FileDescriptorProtoSchema } from "@bufbuild/protobuf/wkt";
import { afterEach, describe, expect, it } from "vitest";
import { AdminService, RebuildShardsResponseSchema } from "@ladder/proto/leaderboard/v1/admin_pb";
import { retryPolicy } from "./backoff.js";
import { faultProxy } from "./fault-proxy.js";
import { createClient, serviceDefinition } from "./grpc-stub.js";
import { LadderClient } from "./ladder-client.js";
import type { RetryEvent } from "./retry.js";
import { resumeByToken, ServerStream } from "./server-stream.js";

const field = (name: string, number: number, type: Type) => ({
  name,
  number,
  type,
  label: Label.OPTIONAL,
  jsonName: name.replace(/_(.)/g, (_, c: string) => c.toUpperCase()),
});
/** test.v1.Watch: a server stream whose request and messages carry resume_token. */
const Watch = createFileRegistry(
  create(FileDescriptorProtoSchema, {
    name: "test/watch.proto",
    package: "test.v1",
    syntax: "proto3",
    messageType: [
      { name: "WatchRequest", field: [field("board", 1, Type.STRING), field("resume_token", 2, Type.STRING)] },
      { name: "WatchUpdate", field: [field("resume_token", 1, Type.STRING), field("seq", 2, Type.INT64)] },
    ],
    service: [
      {
        name: "Watch",
        method: [{ name: "Watch", inputType: ".test.v1.WatchRequest", outputType: ".test.v1.WatchUpdate", serverStreaming: true }],
      },
    ],
  }),
  () => undefined,
).getService("test.v1.Watch")!;

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

/** A grpc-js server of `service` on a free port, behind a proxy whose connections `cut()` destroys. */
async function serve(service: DescService, handlers: grpc.UntypedServiceImplementation) {
  const server = new grpc.Server();
  server.addService(serviceDefinition(service), handlers);
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (e, p) => (e ? reject(e) : resolve(p))),
  );
  const proxy = await faultProxy(`127.0.0.1:${port}`);
  cleanups.push(
    () => proxy.close(),
    () => server.forceShutdown(),
  );
  return proxy;
}

const fast = retryPolicy({ maxAttempts: 20, initialBackoffMs: 5, maxBackoffMs: 50 });

describe("client > server streams", () => {
  it("resumes a stream with resume tokens after the last message delivered: every message once, in order", async () => {
    const asked: string[] = [];
    const { address, cut } = await serve(Watch, {
      watch: (call: grpc.ServerWritableStream<Record<string, unknown>, Message>) => {
        asked.push(String(call.request.resumeToken));
        let seq = Number(call.request.resumeToken || 0);
        const timer = setInterval(() => {
          if (++seq > 40) return void (clearInterval(timer), call.end());
          call.write(create(Watch.methods[0]!.output, { resumeToken: String(seq), seq: BigInt(seq) }));
        }, 5);
        call.on("cancelled", () => clearInterval(timer));
      },
    });
    const stub = createClient(Watch as GenService<GenServiceMethods>, address, undefined, {
      "grpc.initial_reconnect_backoff_ms": 20,
    }) as unknown as Record<string, (req: unknown, o: object) => grpc.ClientReadableStream<Record<string, unknown>>>;
    cleanups.push(() => (stub as unknown as { close(): void }).close());
    const reconnects: RetryEvent[] = [];
    const seen: number[] = [];
    let [sinceOpen, cuts] = [0, 0];
    const lastBeforeReconnect = new Set<string>();
    const stream = new ServerStream<Record<string, unknown>>({
      method: "test.v1.Watch/Watch",
      request: create(Watch.methods[0]!.input, { board: "b" }),
      open: (request, signal) => stub.watch!(request, { signal }),
      resume: resumeByToken(Watch.methods[0]!) as never,
      policy: fast,
      deadline: Date.now() + 30_000,
      onReconnect: (e) => {
        reconnects.push(e);
        lastBeforeReconnect.add(String(seen.at(-1)));
        sinceOpen = 0;
      },
    });
    for await (const msg of stream) {
      seen.push(Number(msg.seq));
      if (++sinceOpen === 3 && cuts++ < 2) cut(); // twice: the third message of the first and of the second connection
    }
    expect(seen).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
    expect(reconnects.length).toBeGreaterThanOrEqual(2);
    expect(reconnects.every((e) => (e.error as { code: number }).code === grpc.status.UNAVAILABLE)).toBe(true);
    // opened without a token, then reopened once per cut with the last message delivered before it
    // (messages already received when the connection dropped are delivered first)
    expect(asked[0]).toBe("");
    expect(asked).toHaveLength(3);
    expect(new Set(asked.slice(1))).toEqual(lastBeforeReconnect);
  });

  it("surfaces the failure of RebuildShards after the progress it delivered, without reopening it", async () => {
    let calls = 0;
    const { address, cut } = await serve(AdminService, {
      rebuildShards: (call: grpc.ServerWritableStream<unknown, Message>) => {
        calls++;
        for (const n of [0n, 500n])
          call.write(create(RebuildShardsResponseSchema, { shardId: "shard-1", rebuildId: "r1", eventsReplayed: n }));
      },
    });
    expect(resumeByToken(AdminService.method.rebuildShards)).toBeUndefined();
    const reconnects: RetryEvent[] = [];
    const client = new LadderClient({ router: address, retry: fast, onRetry: (e) => reconnects.push(e) });
    cleanups.push(() => client.close());
    const progress: bigint[] = [];
    const read = async () => {
      for await (const p of client.admin.rebuildShards({ shardIds: ["shard-1"] })) if (progress.push(p.eventsReplayed) === 2) cut();
    };
    await expect(read()).rejects.toMatchObject({ code: grpc.status.UNAVAILABLE });
    expect(progress).toEqual([0n, 500n]);
    expect(calls).toBe(1);
    expect(reconnects).toEqual([]);
  });

  it("cancels the call when cancelled or left: the server sees it, the reader gets CANCELLED", async () => {
    const cancelled: string[] = [];
    const { address } = await serve(AdminService, {
      rebuildShards: (call: grpc.ServerWritableStream<{ shardIds: string[] }, Message>) => {
        call.write(create(RebuildShardsResponseSchema, { shardId: call.request.shardIds[0] }));
        call.on("cancelled", () => cancelled.push(call.request.shardIds[0]!));
      },
    });
    const client = new LadderClient({ router: address });
    cleanups.push(() => client.close());
    const stream = client.admin.rebuildShards({ shardIds: ["a"] });
    const read = async () => {
      for await (const _ of stream) stream.cancel();
    };
    await expect(read()).rejects.toMatchObject({ code: grpc.status.CANCELLED });
    for await (const _ of client.admin.rebuildShards({ shardIds: ["b"] })) break;
    await expect.poll(() => cancelled.sort()).toEqual(["a", "b"]);
    expect(() => stream[Symbol.asyncIterator]()).toThrow(/read once/);
  });
});
