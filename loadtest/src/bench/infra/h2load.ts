/**
 * h2load (Debian's nghttp2-client) as a gRPC load client: a C client sending one fixed request
 * over HTTP/2, so that the client costs little next to the server it drives (a Node client costs
 * about as much CPU as the router it asks, on the same 2 cores). A gRPC request is one frame:
 * 1 byte 0 (not compressed), 4 bytes big-endian length, then the protobuf bytes of the message.
 *
 * h2load counts HTTP statuses only: the gRPC status travels in the trailers, so whoever runs it
 * must first ask the same request once with a real client and check the answer.
 */
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { create, toBinary, type DescMessage, type MessageInitShape } from "@bufbuild/protobuf";
import { HealthCheckRequestSchema } from "@ladder/proto/grpc/health/v1/health_pb";

const run = promisify(execFile);

/** The gRPC frame of one request message: the body h2load sends with `-d`. */
export function grpcFrame<D extends DescMessage>(schema: D, init: MessageInitShape<D>): Uint8Array {
  const msg = toBinary(schema, create(schema, init));
  const out = Buffer.alloc(5 + msg.length);
  out.writeUInt32BE(msg.length, 1);
  out.set(msg, 5);
  return out;
}

/** What h2load asks: the method's path and the request's frame. */
export interface GrpcRequest {
  path: string;
  body: Uint8Array;
}

/** A LeaderboardService request. */
export function lb<D extends DescMessage>(method: string, schema: D, init: MessageInitShape<D>): GrpcRequest {
  return { path: `/leaderboard.v1.LeaderboardService/${method}`, body: grpcFrame(schema, init) };
}

/** The health check: the cheapest call a grpc-js server answers, the floor of the others. */
export const HEALTH_CHECK: GrpcRequest = { path: "/grpc.health.v1.Health/Check", body: grpcFrame(HealthCheckRequestSchema, {}) };

export interface H2loadShape {
  /** Measured seconds (after 1 s of warm-up that counts for nothing). */
  seconds: number;
  connections: number;
  /** Streams in flight per connection. */
  streams: number;
}

export interface H2loadResult {
  /** Requests per second of the measured duration. */
  rate: number;
  /** Requests answered with a 2xx in the measured duration. */
  done: number;
  /** h2load's mean time per request, ms (it prints no median). */
  meanMs: number;
}

/** h2load's version line ("h2load nghttp2/1.52.0"); throws a readable error when h2load is not installed. */
export async function requireH2load(): Promise<string> {
  const { stdout } = await run("h2load", ["--version"]).catch(() => {
    throw new Error("h2load is not installed: apt-get install nghttp2-client (Debian), then run the benchmark again");
  });
  return stdout.trim();
}

/** One h2load run of `path` on `address` with the request body in file `body`. */
export async function h2load(address: string, path: string, body: string, p: H2loadShape): Promise<H2loadResult> {
  const load = ["-D", String(p.seconds), "--warm-up-time", "1", "-c", String(p.connections), "-m", String(p.streams)];
  const grpcHeaders = ["-H", "content-type: application/grpc", "-H", "te: trailers"];
  const args = [...load, ...grpcHeaders, "-d", body, `http://${address}${path}`];
  const { stdout } = await run("h2load", args, { maxBuffer: 16 * 2 ** 20 });
  return parseH2load(stdout);
}

/** The rate, the requests done and the mean time per request of h2load's report; throws when any request failed. */
export function parseH2load(stdout: string): H2loadResult {
  const rate = Number(/finished in [\d.]+s, ([\d.]+) req\/s/.exec(stdout)?.[1]);
  const done = Number(/requests: \d+ total, \d+ started, \d+ done, (\d+) succeeded/.exec(stdout)?.[1]);
  const failed = /(\d+) failed, (\d+) errored, (\d+) timeout/.exec(stdout);
  const non2xx = /status codes: \d+ 2xx, (\d+) 3xx, (\d+) 4xx, (\d+) 5xx/.exec(stdout);
  if (!Number.isFinite(rate) || !Number.isFinite(done)) throw new Error(`h2load printed no rate:\n${stdout}`);
  if (failed?.slice(1).some((n) => Number(n) > 0) || non2xx?.slice(1).some((n) => Number(n) > 0))
    throw new Error(`h2load saw failed requests:\n${stdout}`);
  // "time for request:  min  max  mean  sd  +/- sd", each with its unit (us, ms or s)
  const mean = /time for request:\s+[\d.]+[mu]?s\s+[\d.]+[mu]?s\s+([\d.]+)(m|u)?s/.exec(stdout);
  const meanMs = mean ? Number(mean[1]) * (mean[2] === "u" ? 1e-3 : mean[2] === "m" ? 1 : 1e3) : NaN;
  return { rate, done, meanMs };
}

export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  if (s.length === 0) return NaN;
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
}
