/**
 * The seeded population: players first .. first+count-1 (ids from player-ids.ts), each with
 * a score drawn from the synthetic distribution. Player i's score depends only on
 * (seed, i): the generator for the block of CHUNK players containing i is rngFor(seed,
 * block), so a seed is reproducible whatever range, path or parallelism produced it.
 *
 * Players come out in chunks, with the slot (= partition) each one hashes to, so both
 * seeding paths can route them without hashing twice.
 */
import { slotOf } from "@ladder/model/placement";
import { playerId } from "../workload/player-ids.js";
import { rngFor } from "../workload/rng.js";
import type { ScoreSource } from "../workload/score-distribution.js";

/** Players per generator block. Fixed: changing it changes every seeded score. */
export const CHUNK = 1000;

export interface SeededPlayer {
  playerId: string;
  slot: number;
  points: number;
  reachedAtMs: number;
}

export interface PopulationSpec {
  first: number;
  count: number;
  seed: number;
  numSlots: number;
  scores: ScoreSource;
}

/** The population in chunks of at most CHUNK players, in index order. */
export function* population(spec: PopulationSpec): Generator<SeededPlayer[]> {
  const end = spec.first + spec.count;
  for (let block = Math.floor(spec.first / CHUNK); block * CHUNK < end; block++) {
    const rng = rngFor(spec.seed, block);
    const chunk: SeededPlayer[] = [];
    for (let i = block * CHUNK; i < Math.min(end, (block + 1) * CHUNK); i++) {
      const { points, reachedAtMs } = spec.scores.draw(rng); // drawn for skipped players too: keeps i's draw fixed
      if (i < spec.first) continue;
      const id = playerId(i);
      chunk.push({ playerId: id, slot: slotOf(id, spec.numSlots), points, reachedAtMs });
    }
    yield chunk;
  }
}
