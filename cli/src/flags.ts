/**
 * The kinds of flag the CLI takes, as data: each flag carries its meaning, its placeholder, its
 * default (as it would be typed, parsed like a given value) or what leaving it out means, and the
 * function that turns the text given into a value or names the rule it breaks. The command tables
 * (tables/*.ts) are made of these; parsing (command-line.ts) and help (help.ts) both read them, so
 * what help lists is what parsing takes.
 *
 * This file and the tables import nothing heavy: `--help` and a usage error answer without loading
 * gRPC or the generated protobuf code.
 */

/** A value, or the rule the text broke ("must be an integer"). */
export type Parsed<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly rule: string };

export interface FlagOptions {
  /** What it does, for help: lower case, no final stop ("the board to read"). */
  readonly meaning: string;
  /** The command fails without it. */
  readonly required?: boolean;
  /** The value taken when it is not given, as it would be typed ("10"); shown by help. */
  readonly default?: string;
  /** Without a default: what leaving it out means, for help ("every board"). */
  readonly unsetMeans?: string;
  /** Its value in help and usage ("N", "B", "HOST:PORT"); each kind has its own. */
  readonly placeholder?: string;
}

export interface Flag<T = unknown> extends FlagOptions {
  readonly placeholder: string;
  /** The rule a value must follow, for help when the placeholder does not say it ("1..1000"). */
  readonly rule?: string;
  /** The value of the flag given with no value after it (yes/no flags: yes); without it a value is needed. */
  readonly bare?: T;
  readonly parse: (text: string) => Parsed<T>;
}

/** The flags of a command, by name without the dashes. */
export type Flags = Readonly<Record<string, Flag>>;

type ValueOf<F> = F extends Flag<infer T> ? (F extends { required: true } | { default: string } ? T : T | undefined) : never;
/** The parsed values of a command's flags: a flag that is required or has a default is always there. */
export type Values<F extends Flags> = { readonly [K in keyof F]: ValueOf<F[K]> };

const ok = <T>(value: T): Parsed<T> => ({ ok: true, value });
const bad = (rule: string, text: string): Parsed<never> => ({ ok: false, rule: `${rule} (got ${JSON.stringify(text)})` });

/** Any text but the empty one. */
export function text<const O extends FlagOptions>(o: O): Flag<string> & O {
  return { placeholder: "TEXT", ...o, parse: (t) => (t === "" ? bad("must not be empty", t) : ok(t)) };
}

/** Text matching `pattern`, which `shape` describes ("id=redis://host:port"). */
export function shaped<const O extends FlagOptions & { pattern: RegExp; shape: string }>(o: O): Flag<string> & O {
  return { placeholder: o.shape, ...o, parse: (t) => (o.pattern.test(t) ? ok(t) : bad(`must be ${o.shape}`, t)) };
}

/** A whole number within [min, max] (default: any safe integer), as a number. */
export function integer<const O extends FlagOptions & { min?: number; max?: number }>(o: O): Flag<number> & O {
  const min = o.min ?? Number.MIN_SAFE_INTEGER;
  const max = o.max ?? Number.MAX_SAFE_INTEGER;
  const rule =
    o.min !== undefined && o.max !== undefined
      ? `${o.min}..${o.max}`
      : o.min !== undefined
        ? `at least ${o.min}`
        : o.max !== undefined
          ? `at most ${o.max}`
          : undefined;
  return {
    placeholder: "N",
    ...(rule ? { rule } : {}),
    ...o,
    parse: (t) => {
      if (!/^-?\d+$/.test(t)) return bad("must be an integer", t);
      const n = Number(t);
      return n >= min && n <= max ? ok(n) : bad(`must be an integer${rule ? `, ${rule}` : ""}`, t);
    },
  };
}

/** A whole number of any size (points, offsets, Unix ms), as a bigint. */
export function bigInteger<const O extends FlagOptions>(o: O): Flag<bigint> & O {
  return { placeholder: "N", ...o, parse: (t) => (/^-?\d+$/.test(t) ? ok(BigInt(t)) : bad("must be an integer", t)) };
}

/** A signed 64-bit integer (a column's value: model/src/columns.ts). */
export function int64<const O extends FlagOptions>(o: O): Flag<bigint> & O {
  const fits = (t: string) => /^-?\d{1,19}$/.test(t) && BigInt(t) >= -(2n ** 63n) && BigInt(t) < 2n ** 63n;
  return { placeholder: "N", ...o, parse: (t) => (fits(t) ? ok(BigInt(t)) : bad("must be a signed 64-bit integer", t)) };
}

/** A number above `above` and at most `max` (a percentage: 0 < p <= 100). */
export function decimal<const O extends FlagOptions & { above: number; max: number }>(o: O): Flag<number> & O {
  const rule = `a number above ${o.above} and at most ${o.max}`;
  return {
    placeholder: "P",
    rule,
    ...o,
    parse: (t) => {
      const n = /^-?(\d+\.?\d*|\.\d+)$/.test(t) ? Number(t) : NaN;
      return n > o.above && n <= o.max ? ok(n) : bad(`must be ${rule}`, t);
    },
  };
}

/** One of `choices`, as typed (lower case). */
export function oneOf<const O extends FlagOptions & { choices: readonly string[] }>(o: O): Flag<O["choices"][number]> & O {
  const all = o.choices.join("|");
  return {
    placeholder: all.length <= 20 ? all : "CHOICE",
    ...(all.length <= 20 ? {} : { rule: `one of ${o.choices.join(", ")}` }),
    ...o,
    parse: (t) => (o.choices.includes(t) ? ok(t) : bad(`must be one of ${o.choices.join(", ")}`, t)),
  };
}

/** yes or no; the flag alone means yes. */
export function yesNo<const O extends FlagOptions>(o: O): Flag<boolean> & O {
  return {
    placeholder: "yes|no",
    bare: true,
    ...o,
    parse: (t) => (t === "yes" ? ok(true) : t === "no" ? ok(false) : bad("must be yes or no", t)),
  };
}

/**
 * A comma-separated list of at least one item, each parsed by `item` (default: any non-empty
 * text); the rule broken names the item by its place ("item 2 must be an integer").
 */
export function list<T = string, const O extends FlagOptions = FlagOptions>(o: O & { item?: Flag<T> }): Flag<T[]> & O {
  const item = o.item ?? (text({ meaning: "" }) as unknown as Flag<T>);
  return {
    placeholder: `${item.placeholder},...`,
    ...o,
    parse: (t) => {
      const out: T[] = [];
      for (const [i, part] of t.split(",").entries()) {
        const p = item.parse(part.trim());
        if (!p.ok) return { ok: false, rule: `item ${i + 1} ${p.rule}` };
        out.push(p.value);
      }
      return ok(out);
    },
  };
}
