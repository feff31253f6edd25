import { execFileSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { makeDataDirPrivate } from "./private-data-dir.js";

const modeOf = (path: string) => (statSync(path).mode & 0o777).toString(8);

describe("local cluster > private data dir", () => {
  const umask = process.umask();
  let root: string;
  afterEach(() => {
    process.umask(umask);
    rmSync(root, { recursive: true, force: true });
  });

  it("tightens what an earlier run left: directories 0700, files 0600, a link's target untouched", () => {
    root = mkdtempSync(join(tmpdir(), "ladder-private-"));
    const data = join(root, "data");
    mkdirSync(join(data, "kafka", "logs", "ladder.scores-0"), { recursive: true, mode: 0o755 });
    chmodSync(data, 0o755);
    writeFileSync(join(data, "credentials.json"), "[]", { mode: 0o644 });
    writeFileSync(join(data, "kafka", "logs", "ladder.scores-0", "00000000000000000000.log"), "", { mode: 0o664 });
    writeFileSync(join(root, "outside"), "", { mode: 0o644 });
    symlinkSync(join(root, "outside"), join(data, "link"));
    makeDataDirPrivate(data);
    expect(modeOf(data)).toBe("700");
    expect(modeOf(join(data, "kafka"))).toBe("700");
    expect(modeOf(join(data, "kafka", "logs", "ladder.scores-0"))).toBe("700");
    expect(modeOf(join(data, "credentials.json"))).toBe("600");
    expect(modeOf(join(data, "kafka", "logs", "ladder.scores-0", "00000000000000000000.log"))).toBe("600");
    expect(modeOf(join(root, "outside"))).toBe("644");
  });

  it("makes what is created after private, by this process and by the processes it starts", () => {
    root = mkdtempSync(join(tmpdir(), "ladder-private-"));
    const data = join(root, "fresh", "data");
    makeDataDirPrivate(data);
    expect(modeOf(data)).toBe("700");
    writeFileSync(join(data, "launcher-state.json"), "{}");
    execFileSync("sh", ["-c", "mkdir redis-0 && echo x > redis-0/dump.rdb"], { cwd: data });
    expect(modeOf(join(data, "launcher-state.json"))).toBe("600");
    expect(modeOf(join(data, "redis-0"))).toBe("700");
    expect(modeOf(join(data, "redis-0", "dump.rdb"))).toBe("600");
  });
});
