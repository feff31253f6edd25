import { describe, expect, it } from "vitest";
import {
  ConfigError,
  duration,
  envSchema,
  envTable,
  envVar,
  envVariables,
  flag,
  humanMs,
  int,
  list,
  oneOf,
  optional,
  parseEnv,
  path,
  port,
  string,
} from "./env-schema.js";

const variables = envVariables({
  N: int({ default: 3, min: 1, max: 9, description: "a count" }),
  WAIT_MS: duration({ default: 90_000, min: 0, max: 3_600_000, description: "a wait" }),
  PORT: port({ default: 80, description: "a port" }),
  NAME: string({ default: "x", pattern: /^[a-z]*$/, description: "a name" }),
  MODE: oneOf({ values: ["a", "b"], default: "a", description: "a | b" }),
  ITEMS: list({ default: "p,q", description: "some items" }),
  ON: flag({ default: true, description: "a switch" }),
  DIR: path({ default: "/tmp", shown: "`$TMP`", description: "a dir" }),
  NOTE: optional({ unsetMeans: "— (none)", description: "a note" }),
  PAIR: envVar({ default: "`1:2`", description: "two numbers" }, (raw, report) => {
    const [a, b] = (raw ?? "1:2").split(":").map(Number);
    if (!Number.isInteger(a) || !Number.isInteger(b)) report(`"${raw}" is not a:b`, ["a"]);
    return { a: a!, b: b! };
  }),
});

const schema = envSchema(variables, {
  check(v, problem) {
    if (v.N > v.PORT) problem("N", "more than PORT");
  },
  build: (v) => ({ ...v }),
});

const problemsOf = (env: Record<string, string>) => {
  try {
    parseEnv(schema, env);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as ConfigError).problems;
  }
  return expect.unreachable("no ConfigError");
};

describe("platform > env-schema", () => {
  it("reads defaults, values and freezes the result", () => {
    const c = parseEnv(schema, {});
    expect(c).toEqual({
      N: 3,
      WAIT_MS: 90_000,
      PORT: 80,
      NAME: "x",
      MODE: "a",
      ITEMS: ["p", "q"],
      ON: true,
      DIR: "/tmp",
      NOTE: undefined,
      PAIR: { a: 1, b: 2 },
    });
    expect(Object.isFrozen(c)).toBe(true);
    expect(
      parseEnv(schema, { N: "5", WAIT_MS: "0", PORT: "8080", NAME: "", MODE: "b", ITEMS: "z", ON: "0", DIR: "/d", NOTE: "n", PAIR: "3:4" }),
    ).toEqual({
      N: 5,
      WAIT_MS: 0,
      PORT: 8080,
      NAME: "",
      MODE: "b",
      ITEMS: ["z"],
      ON: false,
      DIR: "/d",
      NOTE: "n",
      PAIR: { a: 3, b: 4 },
    });
    expect(parseEnv(schema, { N: "", WAIT_MS: "", MODE: "", ON: "", DIR: "", NOTE: "" })).toMatchObject({
      N: 3,
      WAIT_MS: 90_000,
      MODE: "a",
      ON: true,
      DIR: "/tmp",
      NOTE: undefined,
    });
  });

  it("reports every problem together, the cross checks too, naming the variable and its path", () => {
    const env = { N: "0", WAIT_MS: "1h", PORT: "65536", NAME: "X", MODE: "c", ITEMS: " , ", ON: "maybe", PAIR: "1", OTHER: "ignored" };
    expect(problemsOf({ ...env, N: "9", PORT: "2" })).toEqual([
      'WAIT_MS: "1h" must be a duration in milliseconds, an integer from 0 to 3600000 (1 h)',
      'NAME: "X" does not match /^[a-z]*$/',
      'MODE: "c" must be one of a, b',
      "ITEMS: empty list",
      'ON: "maybe" must be 1 or 0',
      'PAIR.a: "1" is not a:b',
      "N: more than PORT",
    ]);
    expect(problemsOf(env)).toContain('PORT: "65536" must be an integer from 1 to 65535');
  });

  it("reports a value that is not text without running the cross checks on it", () => {
    expect(problemsOf({ N: 5 as unknown as string, PORT: "2" })).toEqual([expect.stringMatching(/^N: .*expected string/)]);
  });

  it("renders the markdown table of the variables, defaults as shown, pipes escaped", () => {
    expect(envTable(variables).split("\n")).toEqual([
      "| variable | default | meaning |",
      "|---|---|---|",
      "| `N` | `3` | a count |",
      "| `WAIT_MS` | `90000` (90 s) | a wait |",
      "| `PORT` | `80` | a port |",
      "| `NAME` | `x` | a name |",
      "| `MODE` | `a` | a \\| b |",
      "| `ITEMS` | `p,q` | some items |",
      "| `ON` | `1` | a switch |",
      "| `DIR` | `$TMP` | a dir |",
      "| `NOTE` | — (none) | a note |",
      "| `PAIR` | `1:2` | two numbers |",
    ]);
  });

  it("refuses to render a variable declared without a reader's documentation", async () => {
    const { z } = await import("zod");
    expect(() => envTable(z.object({ RAW: z.string() }))).toThrow(/RAW/);
  });

  it("says durations in words", () => {
    expect([humanMs(300_000), humanMs(2000), humanMs(604_800_000), humanMs(3_600_000), humanMs(1500), humanMs(0)]).toEqual([
      "5 min",
      "2 s",
      "7 d",
      "1 h",
      "1500 ms",
      "0 ms",
    ]);
  });
});
