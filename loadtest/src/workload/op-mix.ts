/**
 * The operation mix: which request the loadtest sends next. Written like
 * "write=50,top=10,rank=30,around=10" (weights, not necessarily summing to 100; an
 * operation left out has weight 0). A draw is one uniform number mapped through the
 * cumulative weights.
 */

export const OPERATIONS = ["write", "top", "rank", "around"] as const;
export type Operation = (typeof OPERATIONS)[number];

export type OpMix = Readonly<Record<Operation, number>>;

export const DEFAULT_MIX = "write=50,top=10,rank=30,around=10";

/** Parses a mix; throws with every problem listed. */
export function parseMix(text: string): OpMix {
  const mix: Record<Operation, number> = { write: 0, top: 0, rank: 0, around: 0 };
  const problems: string[] = [];
  const parts = text.split(",").map((p) => p.trim());
  for (const part of parts.filter(Boolean)) {
    const [name, raw, extra] = part.split("=");
    const weight = Number(raw);
    if (!OPERATIONS.includes(name as Operation)) problems.push(`unknown operation "${name}" (one of ${OPERATIONS.join(", ")})`);
    else if (extra !== undefined || raw === undefined || raw.trim() === "" || !(weight >= 0) || !Number.isFinite(weight))
      problems.push(`"${part}" is not op=weight with a weight >= 0`);
    else mix[name as Operation] = weight;
  }
  if (!problems.length && OPERATIONS.every((op) => mix[op] === 0)) problems.push("every weight is 0");
  if (problems.length) throw new Error(`--mix "${text}": ${problems.join("; ")}`);
  return Object.freeze(mix);
}

/** The operation a uniform u in [0, 1) stands for. */
export function pickOperation(mix: OpMix, u: number): Operation {
  const total = OPERATIONS.reduce((sum, op) => sum + mix[op], 0);
  let at = u * total;
  let last: Operation = "write";
  for (const op of OPERATIONS) {
    if (mix[op] === 0) continue;
    last = op;
    if (at < mix[op]) return op;
    at -= mix[op];
  }
  return last; // u * total rounded up to total
}
