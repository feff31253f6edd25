/**
 * Graceful shutdown on SIGTERM/SIGINT: run the service's close function once (stop taking
 * work, finish what is in flight, commit, close), then exit. A second signal, or a close
 * that takes longer than `graceMs`, exits at once.
 */
import type { Logger } from "./logger.js";

export function onShutdown(log: Logger, close: () => Promise<void>, graceMs = 10_000): void {
  let closing = false;
  const handler = (signal: NodeJS.Signals) => {
    if (closing) process.exit(1);
    closing = true;
    log.info({ signal }, "shutting down");
    const timer = setTimeout(() => {
      log.error({ graceMs }, "shutdown took too long");
      process.exit(1);
    }, graceMs);
    timer.unref();
    close().then(
      () => process.exit(0),
      (err: unknown) => {
        log.error({ err }, "shutdown failed");
        process.exit(1);
      },
    );
  };
  process.on("SIGTERM", handler);
  process.on("SIGINT", handler);
}
