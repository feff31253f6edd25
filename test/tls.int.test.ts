// TLS on every gRPC port when a certificate is configured: a client that trusts the CA gets answers, a
// plaintext client gets none. The certificate is made for the test by openssl (self-signed, 127.0.0.1).
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as grpc from "@grpc/grpc-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClient } from "@ladder/client/grpc-stub";
import { IngestService } from "@ladder/proto/leaderboard/v1/ingest_pb";
import { LeaderboardService } from "@ladder/proto/leaderboard/v1/leaderboard_pb";
import { Operation } from "@ladder/proto/leaderboard/v1/common_pb";
import { startTestCluster, TEST_TOKENS, type TestCluster } from "./cluster-harness.js";
import { makeSelfSignedCert } from "./self-signed.js";

const dir = mkdtempSync(join(tmpdir(), "ladder-tls-"));
const cert = join(dir, "cert.pem");
const key = join(dir, "key.pem");
let c: TestCluster;

beforeAll(async () => {
  makeSelfSignedCert(cert, key);
  c = await startTestCluster("tls", { settings: { LADDER_TLS_CERT_FILE: cert, LADDER_TLS_KEY_FILE: key } });
}, 120_000);
afterAll(async () => {
  await c?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe("tls", () => {
  it("serves clients that trust the certificate, and no plaintext client", async () => {
    const tls = grpc.credentials.createSsl(readFileSync(cert));
    const ingest = createClient(IngestService, c.services.ingestAddress, tls, {}, TEST_TOKENS.write);
    const router = createClient(LeaderboardService, c.services.routerAddress, tls, {}, TEST_TOKENS.read);
    const res = await ingest.submitScores({ updates: [{ board: "tls", playerId: "p", op: Operation.SET, value: 42n }] });
    const rank = await router.getRank({ board: "tls", playerId: "p", consistencyToken: res.consistencyToken });
    expect(Number(rank.entry!.score)).toBe(42);
    const plain = createClient(LeaderboardService, c.services.routerAddress, grpc.credentials.createInsecure(), {}, TEST_TOKENS.read);
    const code = await plain.getRank({ board: "tls", playerId: "p" }, { timeoutMs: 2000 }).then(
      () => "ok",
      (e: { code: number }) => e.code,
    );
    expect([grpc.status.UNAVAILABLE, grpc.status.DEADLINE_EXCEEDED]).toContain(code);
    for (const client of [ingest, router, plain]) client.close();
  });
});
