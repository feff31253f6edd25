/**
 * The open-loop driver: sends request i at its time in the timetable (rate-schedule.ts),
 * whether or not earlier requests have been answered, and hands each request its intended
 * send time so latency is measured from it. Timers fire late by up to a few ms under load;
 * that delay is charged to the request too, as it should be (a real client would have
 * sent it on time).
 *
 * At most `maxInFlight` requests are outstanding: past that the driver waits for answers
 * (requests keep their intended times, so the wait shows in their latency). Sending stops
 * at the end of the duration: requests of the timetable not sent by then are reported as
 * `unsent` (the client or the server could not keep the rate). Then it waits for the
 * requests in flight, each bounded by its own deadline.
 */
import type { Timetable } from "./rate-schedule.js";

export interface OpenLoopDeps {
  timetable: Timetable;
  durationMs: number;
  maxInFlight: number;
  /** Sends one request due at `intendedMs` (clock time); resolves when it is answered, never rejects. */
  send(intendedMs: number): Promise<void>;
  clock(): number;
  /** Stop sending early (Ctrl-C). */
  stopped(): boolean;
  /** Clock time the timetable starts at (now when absent). */
  startMs?: number;
}

export interface OpenLoopResult {
  sent: number;
  /** Requests of the timetable never sent: the rate was not kept. */
  unsent: number;
  /** Most requests outstanding at once. */
  peakInFlight: number;
}

export function runOpenLoop(deps: OpenLoopDeps): Promise<OpenLoopResult> {
  const { timetable, maxInFlight, send, clock, durationMs } = deps;
  const start = deps.startMs ?? clock();
  let next = 0;
  let inFlight = 0;
  let peakInFlight = 0;
  let closed = false;
  let blocked = false;
  let timer: NodeJS.Timeout | undefined;
  return new Promise((resolve) => {
    const finishIfDone = () => {
      if (closed && inFlight === 0) resolve({ sent: next, unsent: timetable.total - next, peakInFlight });
    };
    const answered = () => {
      inFlight--;
      if (closed) finishIfDone();
      else if (blocked) pump();
    };
    const pump = () => {
      clearTimeout(timer);
      const elapsed = clock() - start;
      const due = timetable.dueBy(elapsed);
      while (next < due && inFlight < maxInFlight) {
        const intended = start + timetable.dueAtMs(next++);
        inFlight++;
        peakInFlight = Math.max(peakInFlight, inFlight);
        void send(intended).then(answered, answered);
      }
      blocked = next < due;
      if (next >= timetable.total || elapsed >= durationMs || deps.stopped()) {
        closed = true;
        return finishIfDone();
      }
      // wake at the next request's time; when blocked, an answer wakes us first
      const wait = blocked ? durationMs - elapsed : start + timetable.dueAtMs(next) - clock();
      timer = setTimeout(pump, Math.max(0, wait));
    };
    pump();
  });
}
