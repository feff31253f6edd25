// The partition harness's network: every part of the cluster on a host of its own, a Linux network
// namespace, all joined through one bridge like machines on a switch.
//
//   ladder-pt-sw         the switch: a namespace holding bridge br0 and one veth end per host
//   ladder-pt-<host>     a host: loopback, and eth0 (the other end of its veth) with its address
//   lpt-h (root ns)      the harness's own port on the switch: the test process, its link proxies
//                        (one address each, see cluster.ts) and its checkers
//
// Addresses are in 10.231.7.0/24, a private range nothing else on this machine uses (checked at start:
// an address of the range already on a root-namespace interface not ours refuses to build). The root
// namespace gains a route to that /24 only, through lpt-h; nothing is forwarded anywhere else, so the
// harness can send traffic only to the hosts it made and to loopback.
//
// Names: each host's hostnames resolve through /etc/netns/ladder-pt-<host>/hosts, which `ip netns exec`
// mounts over /etc/hosts for the processes it starts; that is how one Redis URL in the cluster's
// placement reaches a different proxy from each host. `destroy()` removes every namespace, link and
// hosts file of the prefix, also ones a crashed earlier run left; it is safe to call twice.
import { execFile } from "node:child_process";
import { mkdir, readdir, rm, rmdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);
export const PREFIX = "ladder-pt-";
const SWITCH = `${PREFIX}sw`;
const HARNESS_LINK = "lpt-h";
const NETNS_ETC = "/etc/netns";
export const SUBNET = "10.231.7";

/** The harness's address on the switch (the root namespace's end). */
export const HARNESS_ADDRESS = `${SUBNET}.1`;

export interface HostSpec {
  /** Short name, [a-z0-9]{1,10}: the namespace is ladder-pt-<name>. */
  name: string;
  /** Last octet of its address in 10.231.7.0/24 (2..99; 100.. are the harness's proxies). */
  octet: number;
  /** hostname -> address, this host's view (its /etc/hosts). */
  hosts?: Record<string, string>;
}

export interface Topology {
  /** The namespace of a host, for `ip netns exec`. */
  netns(host: string): string;
  address(host: string): string;
  /** Cuts a host off the switch (its veth's switch end down): every link to it drops, as a pulled cable. */
  unplug(host: string): Promise<void>;
  plug(host: string): Promise<void>;
  /** Adds an address (last octet) to the harness's port, for a proxy to listen on. */
  addHarnessAddress(octet: number): Promise<string>;
  destroy(): Promise<void>;
}

export async function ip(...args: string[]): Promise<string> {
  try {
    return (await run("ip", args, { timeout: 10_000 })).stdout;
  } catch (err) {
    const e = err as { stderr?: string; message: string };
    throw new Error(`ip ${args.join(" ")}: ${e.stderr?.trim() || e.message}`, { cause: err });
  }
}

/** Why the harness cannot run here (not root, no `ip netns`), or undefined when it can. */
export async function netnsUnavailable(): Promise<string | undefined> {
  const probe = `${PREFIX}probe-${process.pid}`;
  try {
    await ip("netns", "add", probe);
    await ip("-n", probe, "link", "add", "lpt-probe", "type", "bridge");
    return undefined;
  } catch (err) {
    return (err as Error).message;
  } finally {
    await ip("netns", "del", probe).catch(() => {});
  }
}

/** Removes every namespace, root link and hosts file of the prefix (leftovers of any earlier run). */
export async function removeLeftovers(): Promise<void> {
  const names = (await ip("netns", "list").catch(() => ""))
    .split("\n")
    .map((l) => l.split(" ")[0]!)
    .filter((n) => n.startsWith(PREFIX));
  for (const n of names) await ip("netns", "del", n).catch(() => {});
  await ip("link", "del", HARNESS_LINK).catch(() => {}); // gone with its peer's namespace; kept if that failed
  const etc = await readdir(NETNS_ETC).catch(() => [] as string[]);
  for (const d of etc.filter((n) => n.startsWith(PREFIX))) await rm(join(NETNS_ETC, d), { recursive: true, force: true });
  await rmdir(NETNS_ETC).catch(() => {}); // only when empty: others' files stay
}

async function refuseTakenSubnet(): Promise<void> {
  const taken = (await ip("-br", "-4", "addr")).split("\n").filter((l) => l.includes(` ${SUBNET}.`) && !l.startsWith(HARNESS_LINK));
  if (taken.length) throw new Error(`${SUBNET}.0/24 is in use on this machine, the harness will not build: ${taken.join("; ")}`);
}

export async function buildTopology(hosts: readonly HostSpec[]): Promise<Topology> {
  await removeLeftovers();
  await refuseTakenSubnet();
  const byName = new Map(hosts.map((h) => [h.name, h]));
  const ns = (host: string) => {
    if (!byName.has(host)) throw new Error(`no host "${host}": one of ${[...byName.keys()].join(", ")}`);
    return `${PREFIX}${host}`;
  };
  const destroy = removeLeftovers;
  try {
    await ip("netns", "add", SWITCH);
    await ip("-n", SWITCH, "link", "add", "br0", "type", "bridge");
    await ip("-n", SWITCH, "link", "set", "br0", "up");
    for (const h of hosts) await addHost(h);
    // the harness's port: root end lpt-h, switch end v-harness
    await ip("link", "add", HARNESS_LINK, "type", "veth", "peer", "name", "v-harness", "netns", SWITCH);
    await ip("-n", SWITCH, "link", "set", "v-harness", "master", "br0", "up");
    await ip("addr", "add", `${HARNESS_ADDRESS}/24`, "dev", HARNESS_LINK);
    await ip("link", "set", HARNESS_LINK, "up");
  } catch (err) {
    await destroy();
    throw err;
  }
  return {
    netns: ns,
    address: (host) => `${SUBNET}.${byName.get(ns(host).slice(PREFIX.length))!.octet}`,
    unplug: (host) => ip("-n", SWITCH, "link", "set", `v-${ns(host).slice(PREFIX.length)}`, "down").then(() => {}),
    plug: (host) => ip("-n", SWITCH, "link", "set", `v-${ns(host).slice(PREFIX.length)}`, "up").then(() => {}),
    async addHarnessAddress(octet) {
      const a = `${SUBNET}.${octet}`;
      await ip("addr", "add", `${a}/24`, "dev", HARNESS_LINK);
      return a;
    },
    destroy,
  };
}

async function addHost(h: HostSpec): Promise<void> {
  if (!/^[a-z0-9]{1,10}$/.test(h.name)) throw new Error(`host name "${h.name}": 1 to 10 of [a-z0-9]`);
  if (!(h.octet >= 2 && h.octet <= 99)) throw new Error(`host ${h.name}: octet ${h.octet} outside 2..99`);
  const ns = `${PREFIX}${h.name}`;
  await ip("netns", "add", ns);
  await ip("-n", ns, "link", "set", "lo", "up");
  // both ends made in their namespaces: nothing of it ever sits in the root namespace
  await ip("-n", SWITCH, "link", "add", `v-${h.name}`, "type", "veth", "peer", "name", "eth0", "netns", ns);
  await ip("-n", SWITCH, "link", "set", `v-${h.name}`, "master", "br0", "up");
  await ip("-n", ns, "addr", "add", `${SUBNET}.${h.octet}/24`, "dev", "eth0");
  await ip("-n", ns, "link", "set", "eth0", "up");
  const lines = ["127.0.0.1 localhost", ...Object.entries(h.hosts ?? {}).map(([name, a]) => `${a} ${name}`)];
  await mkdir(join(NETNS_ETC, ns), { recursive: true });
  await writeFile(join(NETNS_ETC, ns, "hosts"), `${lines.join("\n")}\n`);
}
