// Reads the Prometheus text exposition format that the services serve at /metrics: samples by name and
// labels, enough for tests to compare two scrapes.

export interface Sample {
  name: string;
  labels: Readonly<Record<string, string>>;
  value: number;
}

const LINE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)(?:\s+\d+)?$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

export function parseSamples(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split("\n")) {
    if (line === "" || line.startsWith("#")) continue;
    const m = LINE.exec(line);
    if (!m) throw new Error(`not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, k, v] of (m[2] ?? "").matchAll(LABEL)) labels[k!] = v!.replace(/\\(.)/g, (_, c: string) => (c === "n" ? "\n" : c));
    samples.push({ name: m[1]!, labels, value: Number(m[3]) });
  }
  return samples;
}

/** One scrape: the samples, with a lookup that sums every sample of `name` whose labels include `match`. */
export class Scrape {
  constructor(
    readonly text: string,
    readonly samples: readonly Sample[] = parseSamples(text),
  ) {}

  static async of(url: string): Promise<Scrape> {
    const res = await fetch(url);
    if (res.status !== 200) throw new Error(`${url}: HTTP ${res.status}: ${(await res.text()).slice(0, 500)}`);
    return new Scrape(await res.text());
  }

  /** Samples of `name` whose labels include every pair of `match`. */
  all(name: string, match: Readonly<Record<string, string>> = {}): Sample[] {
    return this.samples.filter((s) => s.name === name && Object.entries(match).every(([k, v]) => s.labels[k] === v));
  }

  /** The sum of those samples' values (0 when there are none). */
  sum(name: string, match: Readonly<Record<string, string>> = {}): number {
    return this.all(name, match).reduce((a, s) => a + s.value, 0);
  }

  has(name: string): boolean {
    return this.samples.some((s) => s.name === name);
  }
}
