import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { PageSpill } from "./page-spill.js";

let dir: string | undefined;
afterEach(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
  dir = undefined;
});

describe("store > page spill", () => {
  it("gives back every page as appended, in any order, and leaves no file behind", async () => {
    dir = await mkdtemp(join(tmpdir(), "spill-test-"));
    const spill = await PageSpill.open(dir);
    expect(await readdir(dir)).toEqual([]); // unlinked once open: a crash leaves nothing
    const pages = Array.from({ length: 50 }, (_, i) => Buffer.alloc(1 + ((i * 7919) % 70_000), i));
    const refs = [];
    for (const [i, p] of pages.entries()) refs.push(await spill.append(p, i));
    expect(spill.bytes).toBe(pages.reduce((n, p) => n + p.length, 0));
    for (const i of [49, 0, 17, 3, 48, 25]) {
      expect(refs[i]!.members).toBe(i);
      expect((await spill.read(refs[i]!)).equals(pages[i]!)).toBe(true);
    }
    await spill.close();
    expect(await readdir(dir)).toEqual([]);
  });

  it("refuses a page past the file's end instead of returning short bytes", async () => {
    dir = await mkdtemp(join(tmpdir(), "spill-test-"));
    const spill = await PageSpill.open(dir);
    const ref = await spill.append(Buffer.from("abc"), 1);
    await expect(spill.read({ ...ref, length: 10 })).rejects.toThrow(/ends at 3, before its page's end \(10\)/);
    await spill.close();
  });
});
