// The Kubernetes base rendered by kustomize (a real kubectl) and every object validated against the
// Kubernetes schemas; then what the schemas cannot say: stable shard ids, a configuration the services
// accept, gRPC health probes (HTTP for the gateway), resource requests, a disruption budget for every
// workload, metrics scraped from every service that serves them, a restarted Redis primary that waits
// out Sentinel's retry of a failed election, and Kafka and Redis secured: no Redis
// or Sentinel without users, each service with its own logins only. The overlay redis-tls (the base
// with the component that runs Redis over TLS) is rendered and checked the same way.
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "@ladder/platform/config";
import { KAFKA_ROLE_USERS } from "@ladder/log/kafka-acls";
import { REDIS_USER_NAMES, redisPasswordVar } from "../../local/src/redis-acl-templates.js";
import { type K8sObject, renderBase, validate } from "./manifests.js";

type Container = {
  name: string;
  image?: string;
  args?: string[];
  command?: string[];
  ports?: Array<{ name?: string; containerPort: number }>;
  env?: Array<{ name: string; value?: string; valueFrom?: unknown }>;
  volumeMounts?: Array<{ name: string; mountPath: string }>;
  envFrom?: Array<{ configMapRef?: { name: string } }>;
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
  startupProbe?: Probe;
  readinessProbe?: Probe;
  livenessProbe?: Probe;
};
type Probe = { grpc?: { port: number }; httpGet?: { path: string; port: number | string }; exec?: { command: string[] } };
type Volume = { name: string; secret?: { secretName: string; items?: Array<{ key: string; path: string }> } };
type PodTemplate = { metadata: { labels: Record<string, string> }; spec: { containers: Container[]; volumes?: Volume[] } };
type Workload = K8sObject & { spec: { replicas: number; template: PodTemplate; selector: { matchLabels: Record<string, string> } } };

let objects: K8sObject[];
const of = (kind: string) => objects.filter((o) => o.kind === kind);
const named = (kind: string, name: string) => {
  const o = objects.find((x) => x.kind === kind && x.metadata.name === name);
  if (!o) throw new Error(`no ${kind} ${name}`);
  return o;
};
const workloads = () => [...of("Deployment"), ...of("StatefulSet")] as Workload[];
const matches = (selector: Record<string, string>, labels: Record<string, string>) =>
  Object.entries(selector).every(([k, v]) => labels[k] === v);
const envOf = (c: Container) => Object.fromEntries((c.env ?? []).map((e) => [e.name, e.value]));

/** What the kafka-users Secret gives the services' LADDER_KAFKA_*_SASL_PASSWORD, for loadConfig. */
const KAFKA_PASSWORDS = { LADDER_KAFKA_SASL_PASSWORD: "k8s-kafka-password", LADDER_KAFKA_CONTROL_SASL_PASSWORD: "k8s-control-password" };
/** What the redis-users Secret gives the services' Redis and Sentinel passwords, for loadConfig. */
const REDIS_PASSWORDS = {
  LADDER_REDIS_PASSWORD: "k8s-redis-password",
  LADDER_REDIS_ADMIN_PASSWORD: "k8s-redis-admin-password",
  LADDER_SENTINEL_PASSWORD: "k8s-sentinel-password",
};

/**
 * The environment a pod's container gets: the ladder-config map of `rendered` (the base's objects by
 * default), then its own env, $(VAR) expanded as the kubelet does.
 */
function podEnv(
  c: Container,
  fieldValues: Record<string, string>,
  given: Record<string, string>,
  rendered: readonly K8sObject[] = objects,
): Record<string, string> {
  const secrets: Record<string, string> = { ...KAFKA_PASSWORDS, ...REDIS_PASSWORDS, ...given };
  const env: Record<string, string> = {};
  for (const from of c.envFrom ?? [])
    Object.assign(env, rendered.find((o) => o.kind === "ConfigMap" && o.metadata.name === from.configMapRef?.name)?.data ?? {});
  for (const e of c.env ?? []) {
    env[e.name] =
      e.value !== undefined
        ? e.value.replace(/\$\(([A-Z_]+)\)/g, (_, v: string) => env[v] ?? `$(${v})`)
        : (fieldValues[e.name] ?? secrets[e.name] ?? "");
  }
  return env;
}

describe("deploy > k8s base", () => {
  beforeAll(async () => {
    objects = await renderBase();
  });

  it("renders, and every object is valid against the Kubernetes schemas", async () => {
    expect(objects.length).toBeGreaterThan(0);
    expect(await validate(objects)).toEqual([]);
    const kinds = new Set(objects.map((o) => `${o.apiVersion} ${o.kind}`));
    for (const k of [
      "apps/v1 StatefulSet",
      "apps/v1 Deployment",
      "policy/v1 PodDisruptionBudget",
      "monitoring.coreos.com/v1 ServiceMonitor",
      "v1 Service",
      "v1 ConfigMap",
    ])
      expect(kinds).toContain(k);
  });

  it("the validation refuses an object that breaks its schema, and a kind it has no schema for", async () => {
    const bad = structuredClone(named("Deployment", "router")) as Workload;
    (bad.spec as Record<string, unknown>).replicas = "two";
    const problems = await validate([bad, { apiVersion: "example.com/v1", kind: "Gateway", metadata: { name: "g" } }]);
    expect(problems).toHaveLength(2);
    expect(problems[0]).toMatch(/Deployment\/router: .*replicas must be integer/);
    expect(problems[1]).toMatch(/no schema for example.com\/v1 Gateway/);
  });

  it("redis and the shard nodes are StatefulSets; shard node i serves shard-i, and the services accept the configuration", () => {
    expect(named("StatefulSet", "redis")).toBeTruthy();
    const shardNode = named("StatefulSet", "shard-node") as Workload;
    const router = named("Deployment", "router") as Workload;
    const tokens = JSON.stringify([{ name: "game", token: "k8s-test-token-0123456789", roles: ["write"] }]);
    const routerEnv = podEnv(router.spec.template.spec.containers[0]!, {}, { LADDER_TOKENS: tokens });
    const config = loadConfig(routerEnv);
    const shardIds = config.shards.map((s) => s.id);
    expect(shardNode.spec.replicas).toBe(shardIds.length);
    for (let i = 0; i < shardNode.spec.replicas; i++) {
      const env = podEnv(shardNode.spec.template.spec.containers[0]!, { POD_INDEX: String(i) }, {});
      expect(env.LADDER_SHARD_ID).toBe(`shard-${i}`);
      expect(shardIds).toContain(env.LADDER_SHARD_ID);
      expect(loadConfig(env).shards.map((s) => s.id)).toEqual(shardIds);
    }
    // the pod index the ids come from is the StatefulSet controller's label
    expect(JSON.stringify(shardNode.spec.template.spec.containers[0]!.env)).toContain("metadata.labels['apps.kubernetes.io/pod-index']");
  });

  it("every shard's Sentinel name is watched, at a primary pod of that shard, by 3 Sentinels with quorum 2", () => {
    const redis = named("StatefulSet", "redis") as Workload;
    const sentinel = named("StatefulSet", "redis-sentinel") as Workload;
    const sentinelEnv = envOf(sentinel.spec.template.spec.containers[0]!);
    const monitors = Object.fromEntries(sentinelEnv.SENTINEL_MONITOR!.split(",").map((m) => m.split("=") as [string, string]));
    const shards = Number(envOf(redis.spec.template.spec.containers[0]!).SHARDS);
    const config = loadConfig(
      podEnv((named("Deployment", "router") as Workload).spec.template.spec.containers[0]!, {}, { LADDER_TOKENS: "[]" }),
    );
    expect(config.shards).toHaveLength(shards);
    expect(redis.spec.replicas % shards).toBe(0);
    expect(redis.spec.replicas / shards).toBeGreaterThanOrEqual(2); // a primary and a replica at least
    for (const [i, s] of config.shards.entries()) {
      const name = /^sentinel:\/\/.*\/([^/]+)$/.exec(s.redisUrl)?.[1] ?? s.redisUrl; // sentinel://<sentinels>/<master name>
      expect(monitors[name], `${s.id} (${s.redisUrl})`).toBe(`redis-${i}.redis:6379`);
    }
    expect(sentinel.spec.replicas).toBe(3);
    expect(sentinelEnv.SENTINEL_QUORUM).toBe("2");
    expect(config.sentinels).toHaveLength(3);
  });

  it("a restarted primary waits for the failover long enough for the Sentinels to retry a failed election", () => {
    // Sentinel starts an election down-after ms after the primary died and tries a failed one again
    // after twice failover-timeout (Redis Sentinel); a restarted primary the Sentinels still name waits
    // REDIS_REJOIN_WAIT_S (ladder-redis, 15 s unless set) before it serves alone, empty: the retry and
    // its election (a few seconds at most) must fit in that wait, else the shard loses its data to it
    const sentinelEnv = envOf((named("StatefulSet", "redis-sentinel") as Workload).spec.template.spec.containers[0]!);
    const nodeEnv = envOf((named("StatefulSet", "redis") as Workload).spec.template.spec.containers[0]!);
    const retryAtMs = Number(sentinelEnv.SENTINEL_DOWN_AFTER_MS) + 2 * Number(sentinelEnv.SENTINEL_FAILOVER_TIMEOUT_MS);
    const waitMs = 1000 * Number(nodeEnv.REDIS_REJOIN_WAIT_S ?? 15);
    expect(retryAtMs).toBeGreaterThan(0);
    expect(retryAtMs + 5_000, `a failed election retried ${retryAtMs} ms after the death, the wait ${waitMs} ms`).toBeLessThanOrEqual(
      waitMs,
    );
  });

  it("routers and ingest are Deployments probed by gRPC health checks on their gRPC port", () => {
    for (const name of ["router", "ingest"]) {
      const d = named("Deployment", name) as Workload;
      const c = d.spec.template.spec.containers[0]!;
      const grpc = c.ports!.find((p) => p.name === "grpc")!.containerPort;
      expect(c.readinessProbe?.grpc?.port, name).toBe(grpc);
      expect(c.livenessProbe?.grpc?.port, name).toBe(grpc);
      expect(d.spec.replicas).toBeGreaterThanOrEqual(2);
    }
  });

  it("the gateway is a Deployment behind a Service, probed over HTTP at /healthz, asking the router Service with its own token from the Secret", () => {
    const d = named("Deployment", "gateway") as Workload;
    const c = d.spec.template.spec.containers[0]!;
    expect(c.args).toEqual(["gateway"]);
    const http = c.ports!.find((p) => p.name === "http")!.containerPort;
    for (const probe of [c.startupProbe, c.readinessProbe, c.livenessProbe]) {
      expect(probe?.httpGet?.path).toBe("/healthz");
      expect(probe?.httpGet?.port === "http" ? http : probe?.httpGet?.port).toBe(http);
    }
    expect(d.spec.replicas).toBeGreaterThanOrEqual(2);
    const services = of("Service") as Array<
      K8sObject & { spec: { selector: Record<string, string>; ports: Array<{ name: string; port: number; targetPort?: number | string }> } }
    >;
    const service = named("Service", "gateway") as (typeof services)[number];
    expect(matches(service.spec.selector, d.spec.template.metadata.labels)).toBe(true);
    const port = service.spec.ports.find((p) => p.name === "http")!;
    expect(port.targetPort === undefined ? port.port : port.targetPort === "http" ? http : port.targetPort).toBe(http);
    // its environment through the services' own loadConfig: where it listens, the router it asks, its token
    const token = "k8s-monitor-token-0123456789";
    const config = loadConfig(podEnv(c, {}, { LADDER_GATEWAY_TOKEN: token }));
    expect(config.gatewayListen).toBe(`0.0.0.0:${http}`);
    expect(config.gatewayToken).toBe(token);
    const [host, routerPort] = config.gatewayRouter.split(":");
    const router = named("Service", host!) as (typeof services)[number];
    expect(matches(router.spec.selector, (named("Deployment", "router") as Workload).spec.template.metadata.labels)).toBe(true);
    expect(router.spec.ports.find((p) => p.name === "grpc")?.port).toBe(Number(routerPort));
  });

  it("gives each service only the credentials it uses: router grants and stream secret, ingest writers, gateway its token, shard nodes no token; each its own Kafka and Redis logins", () => {
    const secretRefs = (w: Workload) =>
      Object.fromEntries(
        w.spec.template.spec.containers.flatMap((cont) =>
          (cont.env ?? []).flatMap((e) => {
            const ref = (e.valueFrom as { secretKeyRef?: { name: string; key: string } } | undefined)?.secretKeyRef;
            return ref ? [[e.name, `${ref.name}/${ref.key}`]] : [];
          }),
        ),
      );
    const sentinelLogin = { LADDER_SENTINEL_PASSWORD: "redis-users/ladder-sentinel-client" };
    expect(secretRefs(named("Deployment", "router") as Workload)).toEqual({
      LADDER_TOKENS: "ladder-router/tokens",
      LADDER_STREAM_SECRET: "ladder-router/stream-secret",
      LADDER_KAFKA_SASL_PASSWORD: "kafka-users/router",
      LADDER_KAFKA_CONTROL_SASL_PASSWORD: "kafka-users/router-control",
      LADDER_REDIS_PASSWORD: "redis-users/ladder-router",
      LADDER_REDIS_ADMIN_PASSWORD: "redis-users/ladder-router-admin",
      ...sentinelLogin,
    });
    expect(secretRefs(named("Deployment", "ingest") as Workload)).toEqual({
      LADDER_TOKENS: "ladder-ingest/tokens",
      LADDER_KAFKA_SASL_PASSWORD: "kafka-users/ingest",
      LADDER_REDIS_PASSWORD: "redis-users/ladder-ingest",
      ...sentinelLogin,
    });
    expect(secretRefs(named("Deployment", "gateway") as Workload)).toEqual({ LADDER_GATEWAY_TOKEN: "ladder-gateway/token" });
    // a shard node holds no token, only its own Kafka and Redis logins
    expect(secretRefs(named("StatefulSet", "shard-node") as Workload)).toEqual({
      LADDER_KAFKA_SASL_PASSWORD: "kafka-users/shard",
      LADDER_REDIS_PASSWORD: "redis-users/ladder-shard-node",
      ...sentinelLogin,
    });
    const router = named("Deployment", "router") as Workload;
    const config = loadConfig(
      podEnv(router.spec.template.spec.containers[0]!, {}, { LADDER_TOKENS: "[]", LADDER_STREAM_SECRET: "s".repeat(32) }),
    );
    expect(config.streamSecret).toBe("s".repeat(32));
  });

  it("every container of the services image runs a program its entry point knows", () => {
    const entry = readFileSync(new URL("../../images/services/ladder.sh", import.meta.url), "utf8");
    const known = [...entry.matchAll(/^\s+([a-z-]+)\) entry=/gm)].map((m) => m[1]);
    const run = workloads()
      .flatMap((w) => w.spec.template.spec.containers)
      .filter((c) => /(^|\/)ladder\/services(:|$)/.test((c as { image?: string }).image ?? ""));
    expect(run.map((c) => c.args?.[0]).sort()).toEqual(["gateway", "ingest", "router", "shard-node"]);
    for (const c of run) expect(known, c.name).toContain(c.args![0]);
  });

  it("every container requests CPU and memory and has a memory limit; every workload has one disruption budget", () => {
    const budgets = of("PodDisruptionBudget") as Array<K8sObject & { spec: { selector: { matchLabels: Record<string, string> } } }>;
    for (const w of workloads()) {
      for (const c of w.spec.template.spec.containers) {
        expect(c.resources?.requests?.cpu, `${w.metadata.name}/${c.name}`).toBeTruthy();
        expect(c.resources?.requests?.memory, `${w.metadata.name}/${c.name}`).toBeTruthy();
        expect(c.resources?.limits?.memory, `${w.metadata.name}/${c.name}`).toBeTruthy();
      }
      const covering = budgets.filter((b) => matches(b.spec.selector.matchLabels, w.spec.template.metadata.labels));
      expect(
        covering.map((b) => b.metadata.name),
        w.metadata.name,
      ).toHaveLength(1);
    }
  });

  it("the ServiceMonitor scrapes every service with a metrics endpoint, at a container port named metrics", () => {
    const monitor = named("ServiceMonitor", "ladder") as K8sObject & {
      spec: { selector: { matchLabels: Record<string, string> }; endpoints: Array<{ port: string }> };
    };
    const port = monitor.spec.endpoints[0]!.port;
    const services = of("Service") as Array<
      K8sObject & { spec: { selector: Record<string, string>; ports: Array<{ name: string; port: number }> } }
    >;
    const scraped = services.filter((s) => matches(monitor.spec.selector.matchLabels, s.metadata.labels ?? {}));
    expect(scraped.map((s) => s.metadata.name).sort()).toEqual(["ingest", "router", "shard-node"]);
    for (const w of workloads()) {
      const metrics = w.spec.template.spec.containers.flatMap((c) => c.ports ?? []).filter((p) => p.name === "metrics");
      const service = scraped.find((s) => matches(s.spec.selector, w.spec.template.metadata.labels));
      if (metrics.length === 0) {
        expect(service, w.metadata.name).toBeUndefined();
        continue;
      }
      expect(service, w.metadata.name).toBeDefined();
      expect(service!.spec.ports.find((p) => p.name === port)?.port).toBe(metrics[0]!.containerPort);
      const env = podEnv(w.spec.template.spec.containers[0]!, { POD_INDEX: "0" }, {});
      const listen = Object.entries(env).find(([k]) => /^LADDER_.*METRICS_LISTEN$/.test(k))?.[1];
      expect(listen, w.metadata.name).toBe(`0.0.0.0:${metrics[0]!.containerPort}`);
    }
  });

  it("Kafka is secured: each service logs in over TLS as its own user from the kafka-users Secret; the brokers make those users; a Job the ACLs", () => {
    const secretRef = (c: Container, name: string) =>
      (c.env?.find((e) => e.name === name)?.valueFrom as { secretKeyRef?: { name: string; key: string } } | undefined)?.secretKeyRef;
    const caOf = (t: PodTemplate, c: Container, caFile: string) => {
      const mount = c.volumeMounts?.find((m) => caFile.startsWith(`${m.mountPath}/`));
      const volume = t.spec.volumes?.find((v) => v.name === mount?.name);
      return volume?.secret; // the CA's key only: not the brokers' private key
    };
    const logins: Record<string, string[]> = { ingest: ["ingest"], router: ["router", "router-control"], "shard-node": ["shard"] };
    for (const [name, users] of Object.entries(logins)) {
      const w = workloads().find((x) => x.metadata.name === name)!;
      const c = w.spec.template.spec.containers[0]!;
      const config = loadConfig(podEnv(c, { POD_INDEX: "0" }, { LADDER_TOKENS: "[]" }));
      expect(config.kafkaSecurity?.sasl?.username, name).toBe(users[0]);
      expect(config.kafkaControlSecurity?.sasl?.username, name).toBe(users.at(-1));
      expect(secretRef(c, "LADDER_KAFKA_SASL_PASSWORD"), name).toEqual({ name: "kafka-users", key: users[0] });
      expect(config.kafkaSecurity?.tls?.caFile, name).toBeTruthy();
      expect(caOf(w.spec.template, c, config.kafkaSecurity!.tls!.caFile!), name).toEqual({
        secretName: "kafka-tls",
        items: [{ key: "ca.pem", path: "ca.pem" }],
      });
    }
    const gateway = (named("Deployment", "gateway") as Workload).spec.template.spec.containers[0]!;
    expect(gateway.env?.some((e) => e.name.startsWith("LADDER_KAFKA_SASL"))).toBe(false);

    const kafka = (named("StatefulSet", "kafka") as Workload).spec.template;
    const broker = kafka.spec.containers[0]!;
    expect(secretRef(broker, "KAFKA_BROKER_PASSWORD")).toEqual({ name: "kafka-users", key: "broker" });
    const made = envOf(broker)
      .KAFKA_SCRAM_USERS!.split(",")
      .map((u) => u.split("=")[0]);
    expect(made).toEqual([...KAFKA_ROLE_USERS]);
    expect(kafka.spec.volumes?.find((v) => v.secret?.secretName === "kafka-tls")).toBeTruthy();

    const job = named("Job", "kafka-acls") as K8sObject & { spec: { template: PodTemplate } };
    const acls = job.spec.template.spec.containers[0]!;
    expect(acls.args).toEqual(["kafka-acls"]);
    expect(readFileSync(new URL("../../images/services/ladder.sh", import.meta.url), "utf8")).toMatch(/^\s+kafka-acls\) entry=/m);
    const config = loadConfig(podEnv(acls, {}, { LADDER_KAFKA_SASL_PASSWORD: "broker-password" }));
    expect(config.kafkaSecurity?.sasl?.username).toBe("broker");
    expect(secretRef(acls, "LADDER_KAFKA_SASL_PASSWORD")).toEqual({ name: "kafka-users", key: "broker" });
  });

  it("no Redis runs without users: every node and Sentinel gets its users' passwords from redis-users, and its probes log in", () => {
    const redisRefs = (c: Container) =>
      Object.fromEntries(
        (c.env ?? []).flatMap((e) => {
          const ref = (e.valueFrom as { secretKeyRef?: { name: string; key: string } } | undefined)?.secretKeyRef;
          return ref?.name === "redis-users" ? [[e.name, ref.key]] : [];
        }),
      );
    const redisContainers = workloads().flatMap((w) =>
      w.spec.template.spec.containers
        .filter((c) => /(^|\/)ladder\/redis(:|$)/.test(c.image ?? ""))
        .map((c) => [w.metadata.name, c] as const),
    );
    expect(redisContainers.map(([w]) => w).sort()).toEqual(["redis", "redis-sentinel"]);
    // a node: every user's password, under the variable its ACL template names (the file holds their hashes)
    const node = (named("StatefulSet", "redis") as Workload).spec.template.spec.containers[0]!;
    expect(redisRefs(node)).toEqual(Object.fromEntries(REDIS_USER_NAMES.map((u) => [redisPasswordVar(u), u])));
    expect(node.command?.join(" ")).toMatch(/exec ladder-redis server$/m);
    // a Sentinel: its own user's and the services' user's
    const sentinel = (named("StatefulSet", "redis-sentinel") as Workload).spec.template.spec.containers[0]!;
    expect(redisRefs(sentinel)).toEqual({
      REDIS_SENTINEL_PASSWORD: "ladder-sentinel",
      REDIS_SENTINEL_CLIENT_PASSWORD: "ladder-sentinel-client",
    });
    expect(sentinel.args).toEqual(["sentinel"]);
    for (const [w, c] of redisContainers) {
      expect(
        c.env?.some((e) => e.name.endsWith("_PASSWORD") && e.value !== undefined),
        w,
      ).toBe(false); // from the Secret only
      for (const probe of [c.readinessProbe, c.livenessProbe]) expect(probe?.exec?.command, w).toEqual(["ladder-redis", "ping"]);
      expect(envOf(c).REDIS_KEY_PREFIX ?? "lb:", w).toBe("lb:"); // the services' default LADDER_KEY_PREFIX
    }
  });

  it("each service logs in to Redis and to the Sentinels as its own user, with only that user's password", () => {
    const logins: Record<string, { user: string; admin?: string }> = {
      "shard-node": { user: "ladder-shard-node" },
      router: { user: "ladder-router", admin: "ladder-router-admin" },
      ingest: { user: "ladder-ingest" },
    };
    const passwords = Object.fromEntries(REDIS_USER_NAMES.map((u) => [u, `k8s-${u}-password`]));
    for (const [name, want] of Object.entries(logins)) {
      const c = workloads().find((x) => x.metadata.name === name)!.spec.template.spec.containers[0]!;
      const given = Object.fromEntries(
        (c.env ?? []).flatMap((e) => {
          const ref = (e.valueFrom as { secretKeyRef?: { name: string; key: string } } | undefined)?.secretKeyRef;
          return ref?.name === "redis-users" ? [[e.name, passwords[ref.key]!]] : [];
        }),
      );
      const users = Object.values(given).map((pw) => Object.keys(passwords).find((u) => passwords[u] === pw));
      expect(users.sort(), name).toEqual([want.user, want.admin, "ladder-sentinel-client"].filter((u) => u !== undefined).sort());
      const config = loadConfig(podEnv(c, { POD_INDEX: "0" }, { LADDER_TOKENS: "[]", LADDER_STREAM_SECRET: "s".repeat(32), ...given }));
      expect([config.redisLogin.username, config.redisLogin.password], name).toEqual([want.user, passwords[want.user]]);
      expect([config.redisAdminLogin.username, config.redisAdminLogin.password], name).toEqual([
        want.admin ?? want.user,
        passwords[want.admin ?? want.user],
      ]);
      expect([config.redisLogin.sentinelUsername, config.redisLogin.sentinelPassword], name).toEqual([
        "ladder-sentinel-client",
        passwords["ladder-sentinel-client"],
      ]);
    }
    const gateway = (named("Deployment", "gateway") as Workload).spec.template.spec.containers[0]!;
    expect(gateway.env?.some((e) => e.name.startsWith("LADDER_REDIS") || e.name.startsWith("LADDER_SENTINEL"))).toBe(false);
  });
});

describe("deploy > k8s overlay redis-tls (the base with components/redis-tls)", () => {
  let tls: K8sObject[];
  const workload = (name: string) => tls.find((o) => o.metadata.name === name && /^(StatefulSet|Deployment)$/.test(o.kind)) as Workload;
  const mountOf = (w: Workload, c: Container, file: string) => {
    const mount = c.volumeMounts?.find((m) => file.startsWith(`${m.mountPath}/`));
    return w.spec.template.spec.volumes?.find((v) => v.name === mount?.name)?.secret;
  };

  beforeAll(async () => {
    tls = await renderBase(fileURLToPath(new URL("../overlays/redis-tls", import.meta.url)));
  });

  it("renders valid objects: the base's, with Redis and the Sentinels serving TLS from the redis-tls Secret, readable by their group", async () => {
    expect(await validate(tls)).toEqual([]);
    for (const name of ["redis", "redis-sentinel"]) {
      const w = workload(name);
      const c = w.spec.template.spec.containers[0]!;
      const env = envOf(c);
      expect(mountOf(w, c, env.REDIS_TLS_CERT_FILE!), name).toEqual({ secretName: "redis-tls", defaultMode: 0o440 });
      expect(mountOf(w, c, env.REDIS_TLS_CA_FILE!), name).toEqual({ secretName: "redis-tls", defaultMode: 0o440 });
      expect(env.REDIS_TLS_CERT_FILE!.endsWith("/redis.pem") && env.REDIS_TLS_CA_FILE!.endsWith("/ca.pem"), name).toBe(true);
      expect((w.spec.template.spec as { securityContext?: { fsGroup?: number } }).securityContext?.fsGroup, name).toBeGreaterThan(0);
      // still the ACL users of the base
      expect(
        c.env?.some((e) => e.name === "REDIS_SENTINEL_PASSWORD"),
        name,
      ).toBe(true);
    }
  });

  it("the shard nodes, routers and ingest reach them over TLS, trusting the CA alone; the gateway is unchanged", () => {
    const ca = join(mkdtempSync(join(tmpdir(), "ladder-k8s-ca-")), "ca.pem");
    writeFileSync(ca, "-----BEGIN CERTIFICATE-----\nx\n-----END CERTIFICATE-----\n");
    for (const name of ["shard-node", "router", "ingest"]) {
      const w = workload(name);
      const c = w.spec.template.spec.containers[0]!;
      const env = podEnv(c, { POD_INDEX: "0" }, { LADDER_TOKENS: "[]", LADDER_STREAM_SECRET: "s".repeat(32) }, tls);
      expect(mountOf(w, c, env.LADDER_REDIS_TLS_CA_FILE!), name).toEqual({
        secretName: "redis-tls",
        items: [{ key: "ca.pem", path: "ca.pem" }],
      });
      // Kafka's CA is still mounted beside it
      expect(mountOf(w, c, env.LADDER_KAFKA_TLS_CA!), name).toEqual({
        secretName: "kafka-tls",
        items: [{ key: "ca.pem", path: "ca.pem" }],
      });
      const config = loadConfig({ ...env, LADDER_REDIS_TLS_CA_FILE: ca }); // the mounted file, here
      expect(config.redisLogin.sentinelTls, name).toBe(true);
      expect(config.redisLogin.tlsCa, name).toMatch(/^-----BEGIN CERTIFICATE-----/);
    }
    const gateway = workload("gateway").spec.template.spec.containers[0]!;
    expect(gateway.env?.some((e) => e.name.includes("TLS"))).toBe(false);
  });
});
