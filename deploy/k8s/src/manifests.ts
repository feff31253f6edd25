// Renders the Kubernetes base (deploy/k8s/base) with kustomize, as `kubectl apply -k` would, and
// validates every object it yields against the Kubernetes API schemas: kubernetes-models (its
// validators are compiled from the Kubernetes OpenAPI schemas) for the built-in kinds, and
// @kubernetes-models/prometheus-operator for the ServiceMonitor. No cluster is needed.
//
// Contract: renderBase() returns the objects in kustomize's output order, or rejects with kubectl's
// error; validate() returns one message per object that fails its schema or whose apiVersion/kind has no
// model (an object nobody could check), empty when every object is valid. kubectl comes with the
// machine image here (kubectl kustomize, kustomize v5); scripts/setup.sh installs it where it is missing.
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { parseAllDocuments } from "yaml";

const run = promisify(execFile);
export const K8S_BASE = fileURLToPath(new URL("../base", import.meta.url));

export interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Record<string, string>; [k: string]: unknown };
  spec?: Record<string, unknown>;
  data?: Record<string, string>;
  [k: string]: unknown;
}

export async function renderBase(dir = K8S_BASE): Promise<K8sObject[]> {
  const { stdout } = await run("kubectl", ["kustomize", dir], { maxBuffer: 16 * 1024 * 1024 });
  return parseAllDocuments(stdout)
    .map((d) => {
      if (d.errors.length > 0) throw new Error(`kustomize output is not YAML: ${d.errors[0]!.message}`);
      return d.toJS() as K8sObject;
    })
    .filter((o) => o !== null);
}

/** The model class of an apiVersion/kind: kubernetes-models/<group>/<version> exports one per kind. */
async function modelOf(apiVersion: string, kind: string): Promise<(new (data: object) => { validate(): void }) | undefined> {
  const [group, version] = apiVersion.includes("/") ? apiVersion.split("/") : ["", apiVersion];
  const path =
    group === "monitoring.coreos.com"
      ? `@kubernetes-models/prometheus-operator/${group}/${version}`
      : group === ""
        ? `kubernetes-models/${version}`
        : `kubernetes-models/${group}/${version}`;
  const module = (await import(path).catch(() => ({}))) as Record<string, unknown>;
  return module[kind] as (new (data: object) => { validate(): void }) | undefined;
}

export async function validate(objects: readonly K8sObject[]): Promise<string[]> {
  const problems: string[] = [];
  for (const o of objects) {
    const what = `${o.kind ?? "?"}/${o.metadata?.name ?? "?"}`;
    const Model = await modelOf(String(o.apiVersion), String(o.kind));
    if (Model === undefined) {
      problems.push(`${what}: no schema for ${o.apiVersion} ${o.kind}`);
      continue;
    }
    try {
      new Model(o).validate();
    } catch (err) {
      problems.push(`${what}: ${(err as Error).message}`);
    }
  }
  return problems;
}
