/**
 * How a shard's Redis is addressed. Two forms:
 *
 *   redis://[:password@]host:port      one Redis, as always (rediss:// for TLS)
 *   sentinel://[:password@]master-name  a primary and its replicas, found through Redis Sentinel
 *
 * The second form is what an operator writes in LADDER_SHARDS, with the Sentinels' addresses
 * in LADDER_SENTINELS (one set of Sentinels usually watches every shard). The configuration
 * (config.ts) expands it into the full form, which names the Sentinels too, so that one string
 * is enough for every part that opens a shard's Redis (store/src/connect.ts):
 *
 *   sentinel://[:password@]host:port,host:port,.../master-name
 *
 * The password, when given, is the Redis nodes' (primary and replicas), not the Sentinels'.
 */

export interface SentinelAddress {
  /** The name Sentinel monitors the shard's primary under (`sentinel monitor <name> ...`). */
  name: string;
  sentinels: ReadonlyArray<{ host: string; port: number }>;
  password: string | undefined;
}

const NAME = /^[A-Za-z0-9._-]{1,128}$/;
const HOST_PORT = /^([^\s:,/]+|\[[0-9a-fA-F:]+\]):(\d{1,5})$/;

/** True for a sentinel:// address (either form). */
export const isSentinelUrl = (url: string): boolean => url.startsWith("sentinel://");

/** The short form's master name (and password), or why it is not one. */
export function parseSentinelName(url: string): { name: string; password: string | undefined } | string {
  if (!isSentinelUrl(url)) return "not a sentinel:// address";
  const { auth, rest } = splitAuth(url.slice("sentinel://".length));
  if (auth === null) return "a password is written sentinel://:password@master-name";
  if (!NAME.test(rest)) return `"${rest}" is not a master name (1-128 of A-Z a-z 0-9 . _ -)`;
  return { name: rest, password: auth };
}

/** A host:port, or why not. */
export function hostPortProblem(text: string): string | undefined {
  const m = HOST_PORT.exec(text);
  if (!m || Number(m[2]) < 1 || Number(m[2]) > 65_535) return `"${text}" is not host:port`;
  return undefined;
}

/** The full form of short form `url` (sentinel://[:pw@]name) with the Sentinels `sentinels` (host:port each). */
export function expandSentinelUrl(url: string, sentinels: readonly string[]): string {
  const parsed = parseSentinelName(url);
  if (typeof parsed === "string") throw new Error(`${url}: ${parsed}`);
  const auth = parsed.password === undefined ? "" : `:${parsed.password}@`;
  return `sentinel://${auth}${sentinels.join(",")}/${parsed.name}`;
}

/** The parts of a full-form sentinel:// address; undefined for any other address. */
export function parseSentinelUrl(url: string): SentinelAddress | undefined {
  if (!isSentinelUrl(url)) return undefined;
  const { auth, rest } = splitAuth(url.slice("sentinel://".length));
  const slash = rest.lastIndexOf("/");
  if (auth === null || slash < 0)
    throw new Error(`not a full sentinel address (sentinel://[:password@]host:port,.../master-name): ${redactPassword(url)}`);
  const name = rest.slice(slash + 1);
  const hosts = rest.slice(0, slash).split(",").filter(Boolean);
  if (!NAME.test(name) || hosts.length === 0 || hosts.some((h) => hostPortProblem(h) !== undefined))
    throw new Error(`not a full sentinel address (sentinel://[:password@]host:port,.../master-name): ${redactPassword(url)}`);
  const sentinels = hosts.map((h) => {
    const colon = h.lastIndexOf(":");
    return { host: h.slice(0, colon).replace(/^\[|\]$/g, ""), port: Number(h.slice(colon + 1)) };
  });
  return { name, sentinels, password: auth };
}

/** "host:port" of a node. */
export const nodeAddress = (host: string, port: number | string): string => `${host.includes(":") ? `[${host}]` : host}:${port}`;

/** auth: undefined = none, null = malformed (a user name, which Redis nodes behind Sentinel are not given here). */
function splitAuth(text: string): { auth: string | undefined | null; rest: string } {
  const at = text.lastIndexOf("@");
  if (at < 0) return { auth: undefined, rest: text };
  const userinfo = text.slice(0, at);
  if (!userinfo.startsWith(":")) return { auth: null, rest: text.slice(at + 1) };
  return { auth: decodeURIComponent(userinfo.slice(1)), rest: text.slice(at + 1) };
}

function redactPassword(url: string): string {
  return url.replace(/^(sentinel:\/\/)[^@]*@/, "$1***@");
}
