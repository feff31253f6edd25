/**
 * What a push benchmark run saw, for its tables (push-tables.ts) and the JSON: types only.
 */
import type { StepFigures } from "./push-step.js";
import type { RestFigures } from "./push-rest.js";
import type { Pcts } from "./step-summary.js";

export type { RestFigures };

export interface HoldFigures {
  watchers: number;
  tops: number;
  connections: number;
  /** From the first stream opened to the last first message. */
  seconds: number;
  /** Each stream's first message, ms after the streams began to be opened. */
  firstMs: Pcts;
}

export interface PushRun {
  seeded: string;
  rest: RestFigures[];
  hold: HoldFigures;
  without: StepFigures[];
  with: StepFigures[];
  topsOnly: StepFigures[];
  /** Highest rate sustained by each series (0: not even the first). */
  sustained: { without: number; with: number; topsOnly: number };
  resetLines: string[];
  flagsGoneS: number;
}
