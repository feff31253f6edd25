/**
 * Server streams that survive a transport failure.
 *
 * A ServerStream is read once, with `for await`; it ends when the server ends the stream with OK
 * and throws the gRPC error the stream ended with otherwise. `cancel()` (or leaving the loop)
 * cancels the call: the server sees the cancellation, and the loop ends with CANCELLED.
 *
 * When the stream fails with UNAVAILABLE (the connection dropped, the server went away) the helper
 * asks the stream's `resume` function how to continue. The contract of a resumable stream:
 *
 *   resume(request, last) → the request that continues the stream, given the request it was last
 *   opened with and the last message it delivered (undefined when none came yet); undefined when
 *   it cannot continue, and the failure is surfaced.
 *
 * The helper then opens the stream again with that request, after a pause (backoff.ts; the
 * policy's maxAttempts bounds the openings in a row that deliver nothing, and a pause that would
 * end past the stream's deadline surfaces the failure instead), and goes on yielding messages as
 * if nothing happened. What a message means after a resume is the stream's own business: a stream
 * whose messages carry a resume token (`resumeByToken`) gets exactly the messages after the last
 * one delivered; a stream without one must say what a reopening repeats.
 *
 * A stream plugs in by its descriptor (`resumeByToken`): when its request and its messages both
 * have a string field `resume_token`, it resumes by itself — the request it was opened with, with
 * `resume_token` set to the last message's (kept as it was when that message carried none). No
 * stream of the API has one today: RebuildShards does not resume (a rebuild stops with its call,
 * so a reopened call would be another rebuild, replayed from the start: the caller decides), and
 * its failures surface as they come. Push streams to come (WatchTop, WatchPlayer) resume by
 * carrying `resume_token` in their request and messages.
 */
import { status, type ClientReadableStream } from "@grpc/grpc-js";
import { ScalarType, type DescMethod } from "@bufbuild/protobuf";
import { backoffMs, pause, type RetryPolicy } from "./backoff.js";
import { codeOf, type RetryEvent } from "./retry.js";

export type Resume<Req, Res> = (request: Req, last: Res | undefined) => Req | undefined;

export interface ServerStreamSpec<Req, Res> {
  /** "leaderboard.v1.AdminService/RebuildShards", for onReconnect. */
  method: string;
  request: Req;
  /** Opens the stream with `request` (one call), cancelled when `signal` aborts. */
  open(request: Req, signal: AbortSignal): ClientReadableStream<Res>;
  /** How it continues after a transport failure; none: it does not. */
  resume?: Resume<Req, Res>;
  /** Pauses between openings; maxAttempts: openings in a row that deliver no message. */
  policy: RetryPolicy;
  /** The stream's deadline, ms since the epoch (Infinity: none); `open` passes it to each call. */
  deadline: number;
  /** Called before each reopening. */
  onReconnect?: (e: RetryEvent) => void;
}

export class ServerStream<Res> implements AsyncIterable<Res> {
  private readonly controller = new AbortController();
  private read = false;

  constructor(private readonly spec: ServerStreamSpec<unknown, Res>) {}

  /** Cancels the call (and any reopening): the loop reading the stream ends with CANCELLED. */
  cancel(): void {
    this.controller.abort(Object.assign(new Error("Cancelled on client"), { code: status.CANCELLED, details: "Cancelled on client" }));
  }

  [Symbol.asyncIterator](): AsyncIterator<Res> {
    if (this.read) throw new Error(`${this.spec.method}: a stream is read once`);
    this.read = true;
    return this.messages();
  }

  private async *messages(): AsyncGenerator<Res> {
    const s = this.spec;
    const signal = this.controller.signal;
    let request = s.request;
    let last: Res | undefined;
    let failures = 0; // failed openings since the last message delivered
    for (;;) {
      const call = s.open(request, signal);
      try {
        for await (const msg of call as AsyncIterable<Res>) {
          failures = 0;
          last = msg;
          yield msg;
        }
        return;
      } catch (err) {
        failures++;
        const next =
          signal.aborted || codeOf(err) !== status.UNAVAILABLE || failures >= s.policy.maxAttempts ? undefined : s.resume?.(request, last);
        if (next === undefined) throw err;
        const delayMs = backoffMs(s.policy, failures);
        if (Date.now() + delayMs >= s.deadline) throw err;
        s.onReconnect?.({ method: s.method, attempt: failures, error: err, delayMs });
        await pause(delayMs, signal);
        request = next;
      } finally {
        call.cancel(); // a no-op once the call has ended; ends it when the reader left the loop early
      }
    }
  }
}

/**
 * The resume of a stream whose request and messages both have a string `resume_token` field:
 * the request again, with the last message's token (the request's own while no message carried
 * one). Undefined for a stream without them (RebuildShards).
 */
export function resumeByToken(m: DescMethod): Resume<Record<string, unknown>, Record<string, unknown>> | undefined {
  const tokenField = (fields: DescMethod["input"]["fields"]) =>
    fields.find((f) => f.name === "resume_token" && f.fieldKind === "scalar" && f.scalar === ScalarType.STRING)?.localName;
  const inField = tokenField(m.input.fields);
  const outField = tokenField(m.output.fields);
  if (m.methodKind !== "server_streaming" || inField === undefined || outField === undefined) return undefined;
  return (request, last) => {
    const token = last?.[outField];
    return typeof token === "string" && token !== "" ? { ...request, [inField]: token } : request;
  };
}
