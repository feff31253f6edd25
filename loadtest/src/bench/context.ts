/**
 * What every benchmark gets from main.ts, and what it gives back. Benchmarks run one
 * after another in one process.
 */
import type { Logger } from "@ladder/platform/logger";
import type { KafkaBroker } from "@ladder/deploy/kafka-broker";
import type { CleanupStack } from "./infra/cleanup.js";
import type { BenchName } from "./options.js";
import type { Table } from "./output/table.js";
import type { BenchPlan } from "./plan.js";

export interface BenchContext {
  plan: BenchPlan;
  /** The run's temporary directory (servers' data), removed at the end. */
  dataDir: string;
  /** Ports handed out so far (see infra/ports.ts). */
  ports: Set<number>;
  cleanup: CleanupStack;
  /** Logger of the servers the bench starts: their errors only. */
  log: Logger;
  /** Prints a line of the run's narrative. */
  say(line: string): void;
  /** The run's Kafka broker, started on first use (grpc, ingest, rebuild). */
  kafka(): Promise<KafkaBroker>;
}

export interface BenchOutcome {
  /** Every figure, for the JSON file. */
  figures: Record<string, unknown>;
  tables: Table[];
}

export interface Benchmark {
  name: BenchName;
  title: string;
  /** Its method, static Markdown beside it: the path under loadtest/src/bench/ (e.g. "grpc/grpc.md"). */
  method: string;
  run(ctx: BenchContext): Promise<BenchOutcome>;
}
