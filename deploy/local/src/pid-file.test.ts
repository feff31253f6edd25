import { mkdtempSync, readFileSync, writeFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { alreadyRunning, claimPidFile, pidFilePath, runningLauncher } from "./pid-file.js";

const fresh = () => pidFilePath(mkdtempSync(join(tmpdir(), "ladder-pid-")));

describe("deploy > pid file", () => {
  it("claims a free data dir, and release removes the file", () => {
    const path = fresh();
    const claim = claimPidFile(path, 1234, () => true);
    expect(claim.claimed).toBe(true);
    expect(readFileSync(path, "utf8")).toBe("1234\n");
    expect(runningLauncher(path, (pid) => pid === 1234)).toBe(1234);
    if (claim.claimed) claim.release();
    expect(existsSync(path)).toBe(false);
    expect(runningLauncher(path, () => true)).toBeUndefined();
  });

  it("refuses while the process named in it runs, naming it", () => {
    const path = fresh();
    writeFileSync(path, "999\n");
    expect(claimPidFile(path, 1234, (pid) => pid === 999)).toEqual({ claimed: false, pid: 999 });
    expect(readFileSync(path, "utf8")).toBe("999\n");
  });

  it("takes over a file whose process is gone, or that holds no pid", () => {
    for (const content of ["999\n", "garbage", ""]) {
      const path = fresh();
      writeFileSync(path, content);
      expect(claimPidFile(path, 1234, () => false).claimed).toBe(true);
      expect(readFileSync(path, "utf8")).toBe("1234\n");
    }
  });

  it("release leaves a file that another launcher took over", () => {
    const path = fresh();
    const claim = claimPidFile(path, 1234, () => true);
    writeFileSync(path, "5678\n");
    if (claim.claimed) claim.release();
    expect(readFileSync(path, "utf8")).toBe("5678\n");
  });

  it("says in one line who runs and how to stop it", () => {
    expect(alreadyRunning(42, "/repo/.ladder")).toBe(
      "ladder is already running (pid 42, data dir /repo/.ladder); stop it with: npm run stop",
    );
  });
});
