import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { INSPECTOR_PORT, profileProcess, summary, type CpuProfile } from "./cpu-profile.js";

// a process that keeps one function busy, as a service under load keeps its hot path; without a JIT
// (--jitless), so that no optimisation inlines it into its caller and the samples name it, and on
// small integers, which allocate nothing for the collector to take samples
const BUSY = `
setInterval(function busyWork() { let x = 0; for (let i = 0; i < 1e5; i++) x = (x + ((i * 7) % 13)) | 0; globalThis.sink = x; }, 1);
console.log("ready");
`;

const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) c.kill("SIGKILL");
});

async function busyProcess(): Promise<ChildProcess> {
  const child = spawn(process.execPath, ["--jitless", "-e", BUSY], { stdio: ["ignore", "pipe", "pipe"] });
  children.push(child);
  await new Promise<void>((resolve) => child.stdout!.once("data", () => resolve()));
  return child;
}

const listening = () =>
  fetch(`http://127.0.0.1:${INSPECTOR_PORT}/json/list`).then(
    () => true,
    () => false,
  );

describe("profileProcess", () => {
  it("profiles a running process without stopping it, writes the profile and closes the inspector", async () => {
    const child = await busyProcess();
    const out = join(mkdtempSync(join(tmpdir(), "ladder-profile-")), "busy.cpuprofile");
    const profile = await profileProcess(child.pid!, 1, out);
    expect(child.exitCode).toBeNull(); // still running
    const saved = JSON.parse(readFileSync(out, "utf8")) as CpuProfile;
    expect(saved.samples.length).toBe(profile.samples.length);
    expect(profile.samples.length).toBeGreaterThan(100);
    const { top, busyPercent } = summary(profile, 3);
    expect(top[0]!.name).toBe("busyWork");
    expect(top[0]!.share).toBeGreaterThan(0.2);
    expect(busyPercent).toBeGreaterThan(20); // a busy process (idle between its 1 ms timers at most)
    // the inspector is closed again: the port is free for the next profile
    let open = true;
    for (let i = 0; i < 50 && open; i++) {
      open = await listening();
      if (open) await new Promise((r) => setTimeout(r, 100));
    }
    expect(open).toBe(false);
  });

  it("refuses to profile through an inspector another process holds", async () => {
    const holder = await busyProcess();
    const other = await busyProcess();
    process.kill(holder.pid!, "SIGUSR1"); // the holder's inspector takes the port
    for (let i = 0; i < 50 && !(await listening()); i++) await new Promise((r) => setTimeout(r, 100));
    const out = join(mkdtempSync(join(tmpdir(), "ladder-profile-")), "other.cpuprofile");
    await expect(profileProcess(other.pid!, 1, out)).rejects.toThrow(`belongs to process ${holder.pid}, not ${other.pid}`);
  });
});
