import { createServer, type Socket } from "node:net";
import { silentLogger } from "@ladder/platform/logger";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LogClient } from "./log-client.js";

// A "broker" that accepts every connection and closes it at once: a broker going away. endOffsetsOnce
// must fail on the first refusal, without kafkajs's retries and their backoff, and must try again at
// the next question (the readiness probe renews a shard's as-of with the first answer after a restart).
describe("LogClient.endOffsetsOnce", () => {
  let accepted = 0;
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    accepted++;
    sockets.add(socket);
    socket.destroy();
  });
  let address: string;

  beforeAll(async () => {
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    address = `127.0.0.1:${(server.address() as { port: number }).port}`;
  });
  afterAll(async () => {
    for (const s of sockets) s.destroy();
    await new Promise((r) => server.close(r));
  });

  it("tries a broker that drops every connection once per question, and again at the next", async () => {
    const client = LogClient.unconnected([address], "probe-test", silentLogger());
    try {
      await expect(client.endOffsetsOnce("ladder.scores")).rejects.toThrow();
      expect(accepted).toBe(1);
      await expect(client.endOffsetsOnce("ladder.scores")).rejects.toThrow();
      expect(accepted).toBe(2);
    } finally {
      await client.close();
    }
  });
});
