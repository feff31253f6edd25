/**
 * `npm run bench:idle`: the latency of one SubmitScores call of 500 updates on an idle local cluster
 * (`npm start`; issue #11's target: <= 30 ms p50), and the time from its acknowledgement until a read
 * with its consistency token answers (apply + read). 25 calls, one every 400 ms (the first 5 not
 * counted), so each finds the cluster idle. Addresses and token as every client takes them
 * (LADDER_ROUTER_LISTEN, LADDER_INGEST_LISTEN, LADDER_TOKEN, else the write token of the local
 * cluster's credentials file).
 */
import { setTimeout as sleep } from "node:timers/promises";
import { loadConfig } from "@ladder/platform/config";
import { Operation } from "@ladder/proto/leaderboard/v1/common_pb";
import { clientToken } from "./client-token.js";
import { clusterClients } from "./run/cluster-clients.js";

const CALLS = 25;
const UNCOUNTED = 5;
const config = loadConfig(process.env);
const c = clusterClients({
  router: config.routerListen,
  ingest: config.ingestListen,
  connections: 1,
  timeoutMs: 10_000,
  token: clientToken({}, config).token,
});
const acks: number[] = [];
const fresh: number[] = [];
for (let i = 0; i < CALLS; i++) {
  await sleep(400);
  const t0 = performance.now();
  const res = await c.ingest().submitScores({
    updates: Array.from({ length: 500 }, (_, k) => ({
      board: "idle",
      playerId: `i${k}`,
      op: Operation.SET,
      value: BigInt(i * 1000 + k),
    })),
  });
  const t1 = performance.now();
  await c.router().getRank({ board: "idle", playerId: "i7", consistencyToken: res.consistencyToken });
  if (i >= UNCOUNTED) {
    acks.push(t1 - t0);
    fresh.push(performance.now() - t1);
  }
}
c.close();
const q = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))]!.toFixed(1);
console.log(
  `500-update call on an idle cluster: p50 ${q(acks, 0.5)} ms, p90 ${q(acks, 0.9)} ms; ack -> token read answered: p50 ${q(fresh, 0.5)} ms, p90 ${q(fresh, 0.9)} ms (n=${acks.length})`,
);
