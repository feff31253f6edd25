/**
 * Ports for everything the bench starts. The local cluster (`npm start`) owns 6379 (the
 * machine's own Redis), 9092, 7001-7003 and 50051-50052; the OS's ephemeral range
 * (32768-60999 here) contains 50051, so "any free port" is not enough: a port is taken
 * free from the OS and thrown back while it is one of those.
 */
import { freePort } from "@ladder/deploy/free-port";

export const RESERVED_PORTS: ReadonlySet<number> = new Set([6379, 9092, 7001, 7002, 7003, 50051, 50052]);

/** A free port on 127.0.0.1 outside RESERVED_PORTS and `taken`; adds it to `taken`. */
export async function benchPort(taken: Set<number> = new Set()): Promise<number> {
  for (;;) {
    const port = await freePort();
    if (RESERVED_PORTS.has(port) || taken.has(port)) continue;
    taken.add(port);
    return port;
  }
}
