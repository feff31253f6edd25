import { describe, expect, it } from "vitest";
import { parseControlArgs, parseStartArgs, UsageError } from "./launcher-args.js";

describe("deploy > launcher args", () => {
  it("parses npm start's options", () => {
    expect(parseStartArgs([])).toEqual({ background: false, detached: false, format: undefined });
    expect(parseStartArgs(["--background", "--pretty"])).toEqual({ background: true, detached: false, format: "pretty" });
    expect(parseStartArgs(["-b", "--json"])).toMatchObject({ background: true, format: "json" });
    expect(() => parseStartArgs(["--bg"])).toThrow(UsageError);
    expect(() => parseStartArgs(["--bg"])).toThrow(/unknown option --bg; usage: npm start/);
  });

  it("parses the control commands", () => {
    expect(parseControlArgs(["stop"])).toEqual({ command: "stop" });
    expect(parseControlArgs(["status"])).toEqual({ command: "status" });
    expect(parseControlArgs(["logs"])).toEqual({ command: "logs", names: [], follow: true, lines: 20, json: false });
    expect(parseControlArgs(["logs", "router", "shard-0.log", "--no-follow", "-n", "5", "--json"])).toEqual({
      command: "logs",
      names: ["router", "shard-0"],
      follow: false,
      lines: 5,
      json: true,
    });
    expect(parseControlArgs(["profile", "router"])).toEqual({ command: "profile", name: "router", seconds: 10, out: undefined });
    expect(parseControlArgs(["profile", "shard-1", "--seconds", "30", "--out", "/tmp/s1.cpuprofile"])).toEqual({
      command: "profile",
      name: "shard-1",
      seconds: 30,
      out: "/tmp/s1.cpuprofile",
    });
  });

  it("refuses unknown commands and options, naming them, with the usage", () => {
    expect(() => parseControlArgs([])).toThrow(/no command\nusage: npm run cluster/);
    expect(() => parseControlArgs(["restart"])).toThrow(/unknown command restart/);
    expect(() => parseControlArgs(["stop", "now"])).toThrow(/stop takes no arguments \(got now\)/);
    expect(() => parseControlArgs(["logs", "--lines", "x"])).toThrow(/--lines takes a number of lines \(got x\)/);
    expect(() => parseControlArgs(["logs", "--tail"])).toThrow(/unknown option --tail/);
    expect(() => parseControlArgs(["profile"])).toThrow(/profile needs a process name/);
    expect(() => parseControlArgs(["profile", "router", "ingest"])).toThrow(/profile takes one process name \(got router and ingest\)/);
    expect(() => parseControlArgs(["profile", "router", "--seconds", "0"])).toThrow(/--seconds takes 1 to 600 \(got 0\)/);
    expect(() => parseControlArgs(["profile", "router", "--seconds", "601"])).toThrow(/--seconds takes 1 to 600/);
    expect(() => parseControlArgs(["profile", "router", "--out"])).toThrow(/--out takes a file name/);
  });
});
