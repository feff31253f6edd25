// Finds TCP ports on 127.0.0.1 for the processes the local launchers start.
//
// A port is chosen here, released, and bound later by another process (a broker, a container, a
// redis-server), so something else may take it in between. The ports the kernel hands out by itself
// (to every outgoing connection and to every listener on port 0) come from its ephemeral range,
// net.ipv4.ip_local_port_range (32768–60999 by default): with hundreds of connections opening while
// tests run, one of them taking a port chosen from that range is a matter of time. So ports are
// chosen at random from the CHOICE_SPAN ports just below the range, which only another chooser like
// this one, or a process with a fixed port, can take; a port found in use is passed over. Only when
// that fails CHOICE_TRIES times in a row does a port come from the kernel (port 0) after all.
import { readFileSync } from "node:fs";
import { createServer } from "node:net";

/** How many ports below the kernel's ephemeral range ports are chosen from. */
const CHOICE_SPAN = 10_000;
/** Ports below this are never chosen (the well-known and the usual registered ones: Redis 6379, Kafka 9092…). */
const LOWEST = 10_000;
const CHOICE_TRIES = 50;

/** The first port of the kernel's ephemeral range (32768 when it cannot be read). */
export function ephemeralLow(rangeFile = "/proc/sys/net/ipv4/ip_local_port_range"): number {
  try {
    const low = Number(readFileSync(rangeFile, "utf8").trim().split(/\s+/)[0]);
    return Number.isInteger(low) && low > 0 && low <= 65535 ? low : 32768;
  } catch {
    return 32768;
  }
}

/** The ports chosen from: [first, end), below the ephemeral range and at or above LOWEST. */
export function choiceRange(low = ephemeralLow()): { first: number; end: number } {
  const end = Math.max(LOWEST + 1, low);
  return { first: Math.max(LOWEST, end - CHOICE_SPAN), end };
}

/**
 * A port that was free on 127.0.0.1 a moment ago, from below the kernel's ephemeral range (see above).
 * Another process may still take it before the caller binds it; the launchers fail loudly (not
 * silently) when that happens.
 */
export async function freePort(): Promise<number> {
  const { first, end } = choiceRange();
  for (let i = 0; i < CHOICE_TRIES; i++) {
    const port = first + Math.floor(Math.random() * (end - first));
    if (await portIsFree(port)) return port;
  }
  return kernelPort();
}

/** A port the kernel picks (bound with port 0, read, released). */
function kernelPort(): Promise<number> {
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
