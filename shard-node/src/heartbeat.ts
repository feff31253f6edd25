/**
 * Keeps the shard's heartbeat key alive while the node runs: refreshed every third of
 * its TTL, so reads fail with UNAVAILABLE within one TTL of the node dying.
 */
import type { Logger } from "../../common/src/logger.js";
import type { ShardStore } from "../../common/src/shard-store/shard-store.js";

export interface Heartbeat {
  stop(): Promise<void>;
}

export async function startHeartbeat(store: ShardStore, ttlMs: number, log: Logger): Promise<Heartbeat> {
  await store.heartbeat(ttlMs);
  const timer = setInterval(() => {
    store.heartbeat(ttlMs).catch((err: unknown) => log.warn({ err }, "heartbeat failed"));
  }, Math.max(50, Math.floor(ttlMs / 3)));
  return {
    async stop() {
      clearInterval(timer);
      await store.clearHeartbeat().catch((err: unknown) => log.warn({ err }, "could not clear heartbeat"));
    },
  };
}
