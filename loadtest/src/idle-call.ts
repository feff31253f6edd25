/**
 * `npm run bench:idle`: the latency of one SubmitScores call of 500 updates on an idle local cluster
 * (`npm start`; issue #11's target: <= 30 ms p50), and the time from its acknowledgement until a read
 * with its consistency token answers (apply + read). 25 calls, one every 400 ms (the first 5 not
 * counted), so each finds the cluster idle. Uses the local cluster's write token
 * (.ladder/credentials.json) or LADDER_TOKEN; LADDER_ROUTER / LADDER_INGEST override the addresses.
 */
import * as grpc from "@grpc/grpc-js";
import { readFileSync } from "node:fs";
import { createClient } from "@ladder/common/grpc-adapter";
import { IngestService } from "@ladder/proto/leaderboard/v1/ingest_pb";
import { LeaderboardService } from "@ladder/proto/leaderboard/v1/leaderboard_pb";
import { Operation } from "@ladder/proto/leaderboard/v1/common_pb";
const creds = process.env.LADDER_TOKEN ? [] : (JSON.parse(readFileSync(".ladder/credentials.json", "utf8")) as Array<{ token: string; roles: string[] }>);
const token = process.env.LADDER_TOKEN ?? creds.find((c) => c.roles.includes("write"))!.token;
const md = () => { const m = new grpc.Metadata(); m.set("authorization", `Bearer ${token}`); return m; };
const ingest = createClient(IngestService, process.env.LADDER_INGEST ?? "127.0.0.1:50052", grpc.credentials.createInsecure());
const router = createClient(LeaderboardService, process.env.LADDER_ROUTER ?? "127.0.0.1:50051", grpc.credentials.createInsecure());
const acks: number[] = []; const fresh: number[] = [];
for (let i = 0; i < 25; i++) {
  await new Promise((r) => setTimeout(r, 400));
  const t0 = performance.now();
  const res = await ingest.submitScores({ updates: Array.from({ length: 500 }, (_, k) => ({ board: "idle", playerId: `i${k}`, op: Operation.SET, value: BigInt(i * 1000 + k) })) }, { metadata: md() });
  const t1 = performance.now();
  await router.getRank({ board: "idle", playerId: "i7", consistencyToken: res.consistencyToken }, { metadata: md() });
  const t2 = performance.now();
  if (i >= 5) { acks.push(t1 - t0); fresh.push(t2 - t1); }
}
const q = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))]!.toFixed(1);
console.log(`500-update call on an idle cluster: p50 ${q(acks, 0.5)} ms, p90 ${q(acks, 0.9)} ms; ack -> token read answered: p50 ${q(fresh, 0.5)} ms, p90 ${q(fresh, 0.9)} ms (n=${acks.length})`);
process.exit(0);
