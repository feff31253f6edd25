/**
 * The pieces every configuration schema is built from: one reader per kind of environment
 * variable (integer with bounds, duration in ms, port, string matching a pattern, one of a
 * set, comma-separated list, flag, path, optional string), each a zod schema from the
 * variable's raw text (or undefined) to its value, with its documentation attached (envDocs):
 * a one-line description and the default as docs/configuration.md shows it. A schema is its variables
 * (envVariables: variable name → reader), checks across them and the building of the
 * configuration object (envSchema); parseEnv runs it and throws one ConfigError listing every
 * problem; envTable renders the variables' markdown table. The services' schema is in
 * config.ts, the local launcher's in deploy/local/src/local-config.ts.
 *
 * A reader that rejects its text reports a problem and still yields its default, so that
 * the checks across variables see typed values and report their problems in the same
 * ConfigError.
 *
 * The empty string: integers, durations, flags, paths, choices and optional strings treat
 * VAR= like an unset variable; strings and lists take it literally (an empty key prefix is a
 * prefix, an empty broker list is a mistake to report).
 */
import { z } from "zod";

export type Env = Readonly<Record<string, string | undefined>>;

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n  - ${problems.join("\n  - ")}`);
    this.name = "ConfigError";
  }
}

/** What the configuration table shows of a variable. */
export interface EnvDoc {
  /** One line: what the variable sets (markdown). */
  readonly description: string;
  /** The default as the table shows it (markdown), or "—" when there is none. */
  readonly default: string;
}

/** The documentation of every reader built here, keyed by the reader's schema. */
export const envDocs = z.registry<EnvDoc>();

/** A variable: its raw text (undefined when unset) to its value. */
export type EnvVar<T> = z.ZodType<T, string | undefined>;

/** Reports a problem about the variable being read; the message need not name it (the path does). */
export type Report = (message: string, path?: readonly (string | number)[]) => void;

interface Doc {
  /** One line: what the variable sets (markdown). */
  description: string;
}

/**
 * A reader from a function: `read` gets the raw text and a `report` for problems, and returns
 * the value (its default when the text is rejected). The base of every reader below, and the
 * way to declare a structured variable (a JSON value, a list of pairs) with its own messages.
 */
export function envVar<T>(doc: EnvDoc, read: (raw: string | undefined, report: Report) => T): EnvVar<T> {
  const schema = z
    .string()
    .optional()
    .transform((raw, ctx) =>
      read(raw, (message, path = []) => {
        ctx.issues.push({ code: "custom", message, input: raw, path: [...path] });
      }),
    );
  return schema.register(envDocs, doc);
}

const unset = (raw: string | undefined): raw is undefined | "" => raw === undefined || raw === "";
const code = (value: string | number) => `\`${value}\``;

/** An integer from min to max. */
export function int(o: Doc & { default: number; min: number; max: number }): EnvVar<number> {
  return envVar({ description: o.description, default: code(o.default) }, (raw, report) => {
    if (unset(raw)) return o.default;
    const value = Number(raw);
    if (Number.isInteger(value) && value >= o.min && value <= o.max) return value;
    report(`"${raw}" must be an integer from ${o.min} to ${o.max}`);
    return o.default;
  });
}

/** A TCP port, 1 to 65535. */
export const port = (o: Doc & { default: number }): EnvVar<number> => int({ ...o, min: 1, max: 65_535 });

/** A duration in whole milliseconds, from min to max; the table shows the default in words too. */
export function duration(o: Doc & { default: number; min: number; max: number }): EnvVar<number> {
  return envVar({ description: o.description, default: `${code(o.default)} (${humanMs(o.default)})` }, (raw, report) => {
    if (unset(raw)) return o.default;
    const value = Number(raw);
    if (Number.isInteger(value) && value >= o.min && value <= o.max) return value;
    report(`"${raw}" must be a duration in milliseconds, an integer from ${o.min} to ${o.max} (${humanMs(o.max)})`);
    return o.default;
  });
}

/** A string, matching `pattern` when given; VAR= is the empty string, not the default. */
export function string(o: Doc & { default: string; pattern?: RegExp }): EnvVar<string> {
  return envVar({ description: o.description, default: o.default === "" ? "(empty)" : code(o.default) }, (raw, report) => {
    const value = raw ?? o.default;
    if (o.pattern && !o.pattern.test(value)) report(`"${value}" does not match ${o.pattern}`);
    return value;
  });
}

/** One of `values`. */
export function oneOf<const V extends string>(o: Doc & { values: readonly V[]; default: NoInfer<V> }): EnvVar<V> {
  return envVar({ description: o.description, default: code(o.default) }, (raw, report) => {
    if (unset(raw)) return o.default;
    if ((o.values as readonly string[]).includes(raw)) return raw as V;
    report(`"${raw}" must be one of ${o.values.join(", ")}`);
    return o.default;
  });
}

/** A comma-separated list of non-empty, trimmed items; VAR= is an empty list, reported. */
export function list(o: Doc & { default: string; mayBeEmpty?: boolean }): EnvVar<readonly string[]> {
  return envVar({ description: o.description, default: o.default ? code(o.default) : "(none)" }, (raw, report) => {
    const items = (raw ?? o.default)
      .split(",")
      .map((s) => s.trim())
      .filter(Boolean);
    if (items.length === 0 && !o.mayBeEmpty) report("empty list");
    return Object.freeze(items);
  });
}

/** 1 or 0 (true, false, yes, no are accepted too). */
export function flag(o: Doc & { default: boolean }): EnvVar<boolean> {
  return envVar({ description: o.description, default: code(o.default ? 1 : 0) }, (raw, report) => {
    if (unset(raw)) return o.default;
    const text = raw.trim().toLowerCase();
    if (["1", "true", "yes"].includes(text)) return true;
    if (["0", "false", "no"].includes(text)) return false;
    report(`"${raw}" must be 1 or 0`);
    return o.default;
  });
}

/** A path (or any free text) with a default; `shown` is how the table shows a computed default. */
export function path(o: Doc & { default: string; shown?: string }): EnvVar<string> {
  return envVar({ description: o.description, default: o.shown ?? code(o.default) }, (raw) => (unset(raw) ? o.default : raw));
}

/** A string without a default: undefined when unset; `unsetMeans` is what the table shows then. */
export function optional(o: Doc & { unsetMeans?: string }): EnvVar<string | undefined> {
  return envVar({ description: o.description, default: o.unsetMeans ?? "—" }, (raw) => (unset(raw) ? undefined : raw));
}

/** Variable name → reader. */
export type EnvShape = Record<string, EnvVar<unknown>>;

/** The values of a schema's variables, by variable name. */
export type EnvValues<S extends EnvShape> = { [K in keyof S]: z.output<S[K]> };

/** A schema's variables: each declared once, in the order the table lists them. */
export const envVariables = <S extends EnvShape>(shape: S): z.ZodObject<S> => z.object(shape);

/**
 * A configuration schema: the variables, then `check` across them (problems are reported with
 * the readers' own, in the same ConfigError), then `build` of the configuration object.
 */
export function envSchema<S extends EnvShape, T>(
  variables: z.ZodObject<S>,
  o: {
    check?: (values: EnvValues<S>, problem: (name: keyof S & string, message: string) => void) => void;
    build: (values: EnvValues<S>) => T;
  },
): z.ZodType<T, Env> {
  return variables
    .superRefine(
      (values, ctx) => o.check?.(values as EnvValues<S>, (name, message) => ctx.addIssue({ code: "custom", path: [name], message })),
      // The readers' problems leave typed defaults behind, so the checks can run after them; a
      // problem of zod's own (a value that is not a string) means some value is not typed.
      { when: (payload) => payload.issues.every((i) => i.code === "custom") },
    )
    .transform((values) => o.build(values as EnvValues<S>)) as unknown as z.ZodType<T, Env>;
}

/** Parses `env` with `schema` and freezes the result; throws ConfigError listing every problem. */
export function parseEnv<T extends object>(schema: z.ZodType<T, Env>, env: Env): Readonly<T> {
  const result = schema.safeParse(env);
  if (!result.success) throw new ConfigError(result.error.issues.map(formatIssue));
  return Object.freeze(result.data);
}

/** `LADDER_TOKENS[0]: needs …` from an issue at path ["LADDER_TOKENS", 0]. */
function formatIssue(issue: z.core.$ZodIssue): string {
  const [name, ...rest] = issue.path;
  const where = String(name ?? "environment") + rest.map((p) => (typeof p === "number" ? `[${p}]` : `.${String(p)}`)).join("");
  return `${where}: ${issue.message}`;
}

/** The markdown table (variable, default, meaning) of a schema's variables, in declaration order. */
export function envTable(variables: z.ZodObject): string {
  const cell = (text: string) => text.replaceAll("|", "\\|");
  const rows = Object.entries(variables.shape).map(([name, schema]) => {
    const doc = envDocs.get(schema as z.ZodType);
    if (!doc) throw new Error(`${name}: declared without a reader of env-schema.ts (no description, no default)`);
    return `| \`${name}\` | ${cell(doc.default)} | ${cell(doc.description)} |`;
  });
  return ["| variable | default | meaning |", "|---|---|---|", ...rows].join("\n");
}

/** 300000 → "5 min", 2000 → "2 s", 604800000 → "7 d", 1500 → "1500 ms". */
export function humanMs(ms: number): string {
  const units: [number, string][] = [
    [86_400_000, "d"],
    [3_600_000, "h"],
    [60_000, "min"],
    [1000, "s"],
  ];
  for (const [size, unit] of units) if (ms >= size && ms % size === 0) return `${ms / size} ${unit}`;
  return `${ms} ms`;
}
