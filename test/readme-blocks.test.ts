import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readmeTour, shellBlock } from "./readme-blocks.js";

describe("readme blocks", () => {
  it("takes a shell block's comments off its commands and keeps the output a comment shows", () => {
    const block = shellBlock(
      [
        "# a comment line",
        "npm run -s cli -- demo                    # 5,000 players",
        'curl -s \'http://127.0.0.1:8080/x?y=1\'   # 404 with {"error":{"code":"NOT_FOUND",...}}',
        "",
      ].join("\n"),
    );
    expect(block.commands).toEqual(["npm run -s cli -- demo", "curl -s 'http://127.0.0.1:8080/x?y=1'"]);
    expect([...block.shown]).toEqual([["curl -s 'http://127.0.0.1:8080/x?y=1'", '{"error":{"code":"NOT_FOUND"']]);
  });

  it("finds README.md's background block, the tour's CLI and curl blocks and its client example", () => {
    const tour = readmeTour(readFileSync(join(import.meta.dirname, "..", "README.md"), "utf8"));
    expect(tour.background.commands.at(0)).toBe("npm start -- --background");
    expect(tour.cli.commands.every((c) => c.startsWith("npm run -s cli -- "))).toBe(true);
    expect(tour.curl.commands.every((c) => c.startsWith("curl -s 'http://127.0.0.1:8080/"))).toBe(true);
    expect(tour.client).toMatchObject({ file: "tour.ts", run: expect.stringMatching(/ npx node tour\.ts$/) });
  });

  it("names what is missing", () => {
    expect(() => readmeTour("# x\n\n## Quick start\n\ntext\n")).toThrow(/no shell block with `npm start -- --background`/);
    expect(() => readmeTour("# x\n")).toThrow(/no "## Quick start" section/);
  });
});
