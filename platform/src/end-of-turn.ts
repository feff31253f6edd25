/**
 * Work gathered during one turn of the event loop and done once at its end (setImmediate: after
 * every socket the turn found readable was read and the promise callbacks of what it read ran).
 *
 * Several parts of a process gather per turn and hand work to each other: the router's rank
 * batches (router/src/read/rank-batch.ts) gather a turn's GetRank calls and, at the end of the
 * turn, queue their reads with the shard readers, which gather a turn's reads per shard
 * (store/src/reader.ts) and send them at the end of the turn. With a setImmediate each, a read
 * queued by a callback that runs in the immediate phase would wait a whole turn more (Node runs
 * immediates scheduled during that phase in the next turn). Here all of them share one queue,
 * drained until empty: what one callback hands to another part goes out in the same pass.
 *
 * Callbacks run in the order they were queued; one that throws does not stop the others (the
 * error is thrown again on the next tick, as an uncaught error, as it would have been from its
 * own setImmediate). Cost: one array push per callback, one setImmediate per turn that has any.
 */

let queued: Array<() => void> = [];

/** Runs `fn` once at the end of this turn, with everything else queued for it (see above). */
export function atEndOfTurn(fn: () => void): void {
  if (queued.push(fn) === 1) setImmediate(drain);
}

function drain(): void {
  const run = queued;
  // callbacks queued while draining are pushed onto `run` and run in this same pass
  for (let i = 0; i < run.length; i++) {
    try {
      run[i]!();
    } catch (err) {
      process.nextTick(() => {
        throw err;
      });
    }
  }
  queued = [];
}
