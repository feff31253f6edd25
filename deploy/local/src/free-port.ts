// Finds TCP ports on 127.0.0.1 for the processes the local launchers start.
import { createServer } from "node:net";

/**
 * A port that was free on 127.0.0.1 a moment ago: bound with port 0, read, released. Another process
 * may take it before the caller binds it; the launchers fail loudly (not silently) when that happens.
 */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once("error", reject);
    server.listen({ host: "127.0.0.1", port: 0, exclusive: true }, () => {
      const address = server.address();
      const port = typeof address === "object" && address !== null ? address.port : 0;
      server.close(() => (port > 0 ? resolve(port) : reject(new Error("no port assigned"))));
    });
  });
}

/** True when nothing listens on 127.0.0.1:port (binding it succeeds); the port is released again. */
export function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.unref();
    server.once("error", () => resolve(false));
    server.listen({ host: "127.0.0.1", port, exclusive: true }, () => {
      server.close(() => resolve(true));
    });
  });
}
