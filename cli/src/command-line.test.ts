import { describe, expect, it } from "vitest";
import { parseCommandLine, suggest, type CommandLine } from "./command-line.js";
import { UsageError } from "./errors.js";
import { ALL, COMMANDS, CONNECTION } from "./tables/index.js";

const words = (line: string) => line.split(" ").filter(Boolean);
const run = (line: string) => {
  const parsed = parseCommandLine(words(line));
  if (parsed.kind !== "run") throw new Error(`${line}: not a command to run`);
  return parsed;
};
/** The UsageError's message for a command line that must be refused. */
const refusal = (argv: string | string[]): string => {
  try {
    parseCommandLine(typeof argv === "string" ? words(argv) : argv);
  } catch (err) {
    expect(err).toBeInstanceOf(UsageError);
    return (err as Error).message;
  }
  throw new Error(`${String(argv)}: not refused`);
};

/** Command lines the README documents (before the CLI had tables): each must still parse. */
const DOCUMENTED = [
  "approx --board arena --score 1250",
  "approx --board arena --player alice",
  "around --board global --player alice --radius 5",
  "at --board global --top 10",
  "at --board global --rank 1000",
  "boards create --board arena --default-op inc --histogram 100,500,1000,5000",
  "boards create --board arena --default-op inc --max-metadata 128",
  "boards create --board daily-kills --period daily --zone Europe/Paris --keep 30 --default-op inc --windows 7d:7:sum,best7:7:best",
  "boards create --board division:gold --default-op inc",
  "boards create --board fridays --period cron --cron 0_18_*_*_5 --zone Europe/Berlin --keep 4",
  "boards create --board speedrun --order lower --min 0 --max 3600000 --resolution-ms 1000 --default-op best",
  "boards delete --board arena",
  "boards list",
  "boards",
  "boards get --board speedrun",
  "boards list --prefix division:",
  "boards update --board speedrun --allow-override yes",
  "count --board global --min 1000 --max 1999",
  "demo",
  "erase --player alice",
  "erase --player bob --boards daily-paris",
  "histogram --board arena",
  "periods --board daily-paris",
  "placement",
  "rank --board daily-kills --window best7 --period 2026-11-30 --player alice",
  "ranks --board global --players alice,bob,carol --mode competition",
  "rebuild --shard shard-1",
  "rebuild --view audit-nov --as-of-ts 1796000000000",
  "rebuilds",
  "reshard --add shard-3=redis://127.0.0.1:7004",
  "reshard --remove shard-1",
  "standing --player alice --boards global,daily-kills,daily-kills~7d,daily-kills@2026-11-30",
  "status --router 127.0.0.1:25051 --token T",
  "status --shard shard-1",
  'submit --board arena --player alice --value 3 --op default --metadata {"name":"Alice"}',
  "submit --board arena --player alice --value 5 --op default --report-ranks yes",
  "submit --board global --player alice --value 1200 --ingest 127.0.0.1:25052 --token T",
  "submit --board global --player bob --value 50 --op inc",
  "submit --board league --player alice --value 30 --op default --also division:gold --leave division:silver",
  "top --board global --limit 100 --cursor abc",
  "top --board daily-kills --window 7d",
  "top --board global --limit 10 --offset 0",
  "top --board daily-paris --period 2026-11-30",
  "top --board global --view audit-nov",
  "watch --board global --limit 10",
  "watch --board global --player alice --top-k 100",
];

describe("cli > command line", () => {
  it("parses every command line the README documents", () => {
    for (const line of DOCUMENTED) expect(() => run(line), line).not.toThrow();
  });

  it("parses every table's example", () => {
    for (const c of ALL) expect(() => run(c.example), c.example).not.toThrow();
  });

  it("gives values their types and defaults", () => {
    const submit = run("submit --board g --player a --value -12 --ts=1700000000000 --also x,y --report-ranks");
    expect(submit).toMatchObject({
      name: "submit",
      values: { board: "g", player: "a", value: -12n, ts: 1700000000000n, op: "set", also: ["x", "y"], "report-ranks": true },
    });
    expect(submit.values["event-id"]).toBeUndefined();
    expect(run("top --board g").values).toMatchObject({ limit: 10, offset: 0n, mode: "unique" });
    expect(run("count --board g --min -5").values).toMatchObject({ min: -5n });
    expect(run("boards create --board b --histogram 10,20").values).toMatchObject({
      histogram: [10n, 20n],
      "allow-override": false,
      "default-op": "best",
    });
    expect(run("boards update --board b --allow-override no").values).toMatchObject({ "allow-override": false, "default-op": undefined });
  });

  it("takes the connection flags with any command, before or after its own", () => {
    expect(run("top --router 10.0.0.1:1 --board g --token T").connection).toEqual({
      router: "10.0.0.1:1",
      ingest: undefined,
      token: "T",
      credentials: undefined,
    });
    expect(run("submit --board g --player a --value 1 --ingest h:2").connection.ingest).toBe("h:2");
  });

  it("runs `boards` alone as `boards list`", () => {
    expect(run("boards").name).toBe("boards list");
    expect(run("boards --prefix d").values).toMatchObject({ prefix: "d" });
  });

  it("names a bad value and its rule", () => {
    expect(refusal("submit --board g --player a --value abc")).toBe('--value must be an integer (got "abc")');
    expect(refusal("top --board g --limit 0")).toBe('--limit must be an integer, 1..1000 (got "0")');
    expect(refusal("top --board g --mode fair")).toBe('--mode must be one of unique, competition, dense (got "fair")');
    expect(refusal("at --board g --top 120")).toBe('--top must be a number above 0 and at most 100 (got "120")');
    expect(refusal("boards create --board b --histogram 10,x")).toBe('--histogram item 2 must be an integer (got "x")');
    expect(refusal("boards create --board b --windows 7d:7")).toBe('--windows item 1 must be NAME:PERIODS:sum|best (got "7d:7")');
    expect(
      run("boards create --board b --period daily --close-grace 10m --rewards gold:1,silver:2-10,elite:top1.5%").values.rewards,
    ).toEqual(["gold:1", "silver:2-10", "elite:top1.5%"]);
    expect(refusal("boards create --board b --rewards gold:first")).toMatch(
      /--rewards item 1 must be REWARD:RANK\|REWARD:FROM-TO\|REWARD:topP%/,
    );
    expect(refusal("boards create --board b --close-grace 10 minutes")).toMatch(/--close-grace/);
    expect(refusal("reshard --add shard-3")).toBe('--add item 1 must be id=redis://host:port (got "shard-3")');
    expect(refusal("submit --board g --player a --value 1 --report-ranks=maybe")).toBe('--report-ranks must be yes or no (got "maybe")');
    expect(refusal(["top", "--board", ""])).toBe('--board must not be empty (got "")');
  });

  it("names an unknown flag, suggests the nearest and --help", () => {
    expect(refusal("top --board g --limt 5")).toBe(
      "top has no flag --limt (did you mean --limit?): npm run -s cli -- top --help lists its flags",
    );
    expect(refusal("top --board g --frobnicate 1")).toBe("top has no flag --frobnicate: npm run -s cli -- top --help lists its flags");
  });

  it("refuses, for every command, each flag its table does not list", () => {
    const everyFlag = new Set(ALL.flatMap((c) => Object.keys(c.flags)));
    for (const c of ALL) {
      for (const flag of [...everyFlag, "nonsense"].filter((f) => !(f in c.flags) && !(f in CONNECTION))) {
        expect(refusal([...c.name.split(" "), `--${flag}`, "1"]), `${c.name} --${flag}`).toMatch(
          new RegExp(`^${c.name} has no flag --${flag}\\b`),
        );
      }
    }
  });

  it("names the required flags that are missing", () => {
    expect(refusal("submit --board g --player a")).toBe("submit needs one of --value, --columns");
    expect(refusal("submit --board g")).toBe("submit needs --player (the player's id)");
    expect(refusal("top --board")).toBe("--board needs a value: B (the board's name)");
    expect(refusal("top --board --limit 5")).toBe("--board needs a value: B (the board's name)");
  });

  it("checks flags that exclude each other or go together", () => {
    expect(refusal("at --board g")).toBe("at needs one of --rank, --top");
    expect(refusal("at --board g --rank 1 --top 5")).toBe("at takes only one of --rank, --top");
    expect(refusal("reshard")).toBe("reshard needs --add or --remove (or both)");
    expect(refusal("top --board g --board h")).toBe("--board is given twice");
  });

  it("names an unknown command or subcommand, with the nearest", () => {
    expect(refusal("tpo --board g")).toBe('unknown command "tpo" (did you mean top?): npm run -s cli -- --help lists the commands');
    expect(refusal("boards crate")).toBe(
      'boards has no subcommand "crate" (did you mean create?): it has list, get, create, update, delete',
    );
    expect(refusal("top --board g extra")).toMatch(/^top: unexpected "extra"/);
    expect(refusal([])).toMatch(/^which command\?/);
    expect(refusal("--board g")).toMatch(/^the command comes first \(got --board\)/);
  });

  it("answers help: the tool's, a group's, a command's", () => {
    const help = (line: string) => (parseCommandLine(words(line)) as Extract<CommandLine, { kind: "help" }>).text;
    for (const line of ["--help", "-h", "help"]) expect(help(line)).toMatch(/^ladder's command line/);
    expect(help("top --help")).toMatch(/^usage: npm run -s cli -- top --board B/);
    expect(help("top --board g -h")).toBe(help("top --help"));
    expect(help("help top")).toBe(help("top --help"));
    expect(help("boards create --help")).toMatch(/^usage: npm run -s cli -- boards create --board B/);
    expect(help("help boards create")).toBe(help("boards create --help"));
    expect(help("boards --help")).toMatch(/^usage: npm run -s cli -- boards <list\|get\|create\|update\|delete>/);
    expect(help("help boards")).toBe(help("boards --help"));
  });

  it("knows each command of the tables by its name", () => {
    for (const [name, c] of Object.entries(COMMANDS)) expect(c.name).toBe(name);
  });

  it("suggests within two edits or by a start of three letters", () => {
    expect(suggest("plyer", ["player", "players"])).toBe(" (did you mean player?)");
    expect(suggest("hist", ["histogram"])).toBe(" (did you mean histogram?)");
    expect(suggest("zzz", ["top"])).toBe("");
  });
});
