// The dashboard (gateway/public/) in a real headless browser: Debian's chromium, driven by
// playwright-core, against a gateway process in front of a test cluster. Checked:
//   - the page loads: the defined boards listed, the live top equal to GetTop, the histogram's bars
//     equal to GetHistogram's buckets, every shard shown serving;
//   - a score submitted through ingest appears in the live top, at the rank GetTop gives it, without a
//     reload (one page load in all, the page's own state kept);
//   - searching a player shows its exact rank (GetRank) and its neighbourhood (GetAround, radius 5);
//   - the last minutes' plots: the log's write rate, one lag line per shard, the board's size as
//     GetCount gives it;
//   - the board follows the URL: a hash typed into the open page, then Back, each show their board;
//     a board without a definition, once read, is listed; a board without a histogram says so in
//     one line;
//   - at 1280×800 the shards are in view without scrolling; at phone width (390×844) nothing
//     scrolls sideways;
// and a screenshot of the page is saved (LADDER_DASHBOARD_SCREENSHOT, default in the temp dir; the
// README's and docs/gateway.md's docs/dashboard.png is one).
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chromium, type Browser, type Page } from "playwright-core";
import { createClient, type ClientOf } from "@ladder/client/grpc-stub";
import { rootLogger } from "@ladder/platform/logger";
import { startGatewayService, type GatewayService } from "@ladder/deploy/gateway-service";
import { AdminService } from "@ladder/proto/leaderboard/v1/admin_pb";
import { Operation, PeriodKind, WindowCombine } from "@ladder/proto/leaderboard/v1/common_pb";
import { startTestCluster, TEST_TOKENS, type TestCluster } from "./cluster-harness.js";

const CHROMIUM = process.env.LADDER_CHROMIUM ?? "/usr/bin/chromium";
const SCREENSHOT = process.env.LADDER_DASHBOARD_SCREENSHOT ?? join(tmpdir(), "ladder-dashboard.png");
const BOARD = "arena";
const NAMES = [
  "ace",
  "blaze",
  "comet",
  "dune",
  "ember",
  "frost",
  "gale",
  "haze",
  "iris",
  "jade",
  "kite",
  "lumen",
  "mako",
  "nova",
  "onyx",
  "pike",
  "quill",
  "rune",
  "sage",
  "talon",
];
const PLAYERS = NAMES.flatMap((n) => [n, `${n}-2`, `${n}-3`]); // 60 players
const LIVE_MS = 30_000; // how long a change may take to show (a bound on liveness, not a measure)
const now = Date.now();

let c: TestCluster;
let admin: ClientOf<typeof AdminService>;
let gateway: GatewayService;
let browser: Browser;
let page: Page;
let loads = 0;

beforeAll(async () => {
  c = await startTestCluster("dashboard");
  admin = createClient(AdminService, c.services.routerAddress, undefined, {}, TEST_TOKENS.admin);
  await admin.createBoard({
    board: {
      name: BOARD,
      defaultOp: Operation.SET,
      rules: { maxPoints: 100_000n, resolutionMs: 1000, histogramBounds: [1000n, 2000n, 3000n, 4000n, 5000n, 6000n, 7000n, 8000n, 9000n] },
    },
  });
  await admin.createBoard({
    board: {
      name: "daily-kills",
      defaultOp: Operation.INCREMENT,
      rules: { period: PeriodKind.DAILY, keepPeriods: 7, windows: [{ name: "7d", periods: 7, combine: WindowCombine.SUM }] },
    },
  });
  const score = (i: number) => Math.round(5000 + 4200 * Math.sin(i * 1.7) * Math.cos(i * 0.31)); // spread over the buckets
  const res = await c.ingest.submitScores({
    updates: PLAYERS.map((playerId, i) => ({
      board: BOARD,
      playerId,
      value: BigInt(score(i)),
      timestampMs: BigInt(now - 3_600_000 + i * 1000),
    })),
  });
  await c.waitApplied(res.offsets);
  gateway = await startGatewayService({
    listen: "127.0.0.1:0",
    routerAddress: c.services.routerAddress,
    monitorToken: TEST_TOKENS.monitor,
    baseEnv: { ...process.env, ...c.services.env },
    log: rootLogger({ level: "fatal", name: "test-dashboard" }),
  });
  browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ["--no-sandbox"] });
  page = await browser.newPage({ viewport: { width: 1440, height: 960 } });
  page.on("load", () => loads++);
  await page.goto(`${gateway.url}#board=${BOARD}`);
}, 180_000);
afterAll(async () => {
  await browser?.close();
  await gateway?.stop();
  admin?.close();
  await c?.stop();
});

/** The rows of a table of the page as [player, rank] (and score where the row keeps it). */
const rows = (testId: string) =>
  page.$$eval(`[data-testid=${testId}]`, (rs) =>
    rs.map((r) => [r.getAttribute("data-player"), r.getAttribute("data-rank"), r.getAttribute("data-score") ?? ""]),
  );
/** Waits until `predicate`, run in the page, is true. */
const until = (predicate: () => boolean) => page.waitForFunction(predicate, undefined, { timeout: LIVE_MS });
// what the page's functions use of the browser's globals (this file is compiled without the DOM's types)
declare const document: {
  querySelectorAll(s: string): { length: number };
  querySelector(s: string): { getAttribute(name: string): string | null } | null;
};
declare const window: Record<string, unknown>;
const topOf = async (limit: number) =>
  (await c.router.getTop({ board: BOARD, limit })).entries.map((e) => [e.playerId, String(e.rank), String(e.score)]);

describe("dashboard in a headless browser", () => {
  it("loads: the defined boards, the live top as GetTop answers it, the histogram's buckets, every shard serving", async () => {
    await until(() => document.querySelectorAll("[data-testid=top-row]").length === 20);
    expect(await rows("top-row")).toEqual(await topOf(20));
    expect(await page.textContent("[data-testid=live-state]")).toBe("live");
    const listed = await page.$$eval("[data-testid=board-link]", (bs) => bs.map((b) => b.getAttribute("data-board")));
    expect(listed).toEqual((await admin.listBoards({})).boards.map((b) => b.name));
    await page.waitForSelector("[data-testid=histogram-bar]", { state: "attached", timeout: LIVE_MS });
    const bars = await page.$$eval("[data-testid=histogram-bar]", (bs) =>
      bs.map((b) => [b.getAttribute("data-min"), b.getAttribute("data-count")]),
    );
    expect(bars).toEqual((await c.router.getHistogram({ board: BOARD })).buckets.map((b) => [String(b.minScore), String(b.count)]));
    await until(() => document.querySelectorAll("[data-testid=shard-row][data-readiness=serving]").length === 3);
    await page.evaluate(() => void (window.marker = "the same page"));
  });

  it("shows a score submitted through ingest in the live top without a reload", async () => {
    const res = await c.ingest.submitScores({
      updates: [{ board: BOARD, playerId: "newcomer", value: 9_990n, timestampMs: BigInt(Date.now()) }],
    });
    await c.waitApplied(res.offsets);
    const want = await topOf(20);
    expect(want[0]).toEqual(["newcomer", "1", "9990"]);
    await until(() => document.querySelector("[data-testid=top-row]")?.getAttribute("data-player") === "newcomer");
    expect(await rows("top-row")).toEqual(want);
    expect(loads).toBe(1);
    expect(await page.evaluate(() => window.marker)).toBe("the same page");
  });

  it("finds a player: its exact rank and its neighbours, as GetRank and GetAround answer", async () => {
    const who = "kite-2";
    await page.fill("[data-testid=search-input]", who);
    await page.click("[data-testid=search-button]");
    await page.waitForSelector("[data-testid=player-rank]", { timeout: LIVE_MS });
    await page.waitForFunction(
      (p: string) => document.querySelector("[data-testid=around-row].me")?.getAttribute("data-player") === p,
      who,
      { timeout: LIVE_MS },
    );
    const rank = await c.router.getRank({ board: BOARD, playerId: who });
    expect(await page.getAttribute("[data-testid=player-rank]", "data-rank")).toBe(String(rank.entry!.rank));
    expect(await page.textContent("[data-testid=standing]")).toContain(`of ${rank.total}`);
    const around = await c.router.getAround({ board: BOARD, playerId: who, radius: 5 });
    expect(await rows("around-row")).toEqual(around.entries.map((e) => [e.playerId, String(e.rank), ""]));
  });

  it("plots the last minutes: the log's write rate, each shard's lag, the board's size", async () => {
    const res = await c.ingest.submitScores({ updates: [{ board: BOARD, playerId: "late", value: 10n, timestampMs: BigInt(Date.now()) }] });
    await c.waitApplied(res.offsets);
    const { total } = await c.router.getCount({ board: BOARD });
    await until(
      () => Number(document.querySelector("[data-testid=trend-writes] [data-testid=trend-line]")?.getAttribute("data-points") ?? 0) >= 2,
    );
    await page.waitForFunction(
      (t: string) => document.querySelector("[data-testid=trend-size] [data-testid=trend-line]")?.getAttribute("data-last") === t,
      String(total),
      { timeout: LIVE_MS },
    );
    const lagLines = await page.$$eval("[data-testid=trend-lag] [data-testid=trend-line]", (ls) =>
      ls.map((l) => l.getAttribute("data-series")),
    );
    expect(lagLines).toEqual([...c.services.shardIds].sort());
    const rates = await page.$eval("[data-testid=trend-writes] [data-testid=trend-line]", (l) => l.getAttribute("data-last"));
    expect(Number(rates)).toBeGreaterThanOrEqual(0);
  });

  it("follows the URL: a hash typed into the open page, then Back", async () => {
    const title = () => page.textContent("[data-testid=board-title]");
    await page.evaluate(() => void ((globalThis as unknown as { location: { hash: string } }).location.hash = "#board=daily-kills"));
    await page.waitForFunction(
      () =>
        document.querySelector("[data-testid=board-title]") !== null &&
        (globalThis as unknown as { document: { getElementById(id: string): { textContent: string } } }).document.getElementById(
          "board-title",
        ).textContent === "daily-kills",
      undefined,
      { timeout: LIVE_MS },
    );
    await until(() => document.querySelector("[data-testid=histogram] p.note") !== null);
    expect(await page.textContent("[data-testid=histogram]")).toContain("keeps no histogram");
    const histogramHeight = await page.$eval(
      ".panel.histogram",
      (p) => (p as unknown as { getBoundingClientRect(): { height: number } }).getBoundingClientRect().height,
    );
    expect(histogramHeight).toBeLessThan(120); // one line, not a box
    await page.goBack();
    await page.waitForFunction(
      () =>
        (globalThis as unknown as { document: { getElementById(id: string): { textContent: string } } }).document.getElementById(
          "board-title",
        ).textContent === "arena",
      undefined,
      { timeout: LIVE_MS },
    );
    expect(await title()).toBe(BOARD);
    await until(() => document.querySelector("[data-testid=top-row]")?.getAttribute("data-player") === "newcomer");
    expect(await rows("top-row")).toEqual(await topOf(20));
    expect(loads).toBe(1);
  });

  it("lists a board without a definition once it has been read", async () => {
    const res = await c.ingest.submitScores({
      updates: [{ board: "free-board", playerId: "solo", op: Operation.SET, value: 5n, timestampMs: BigInt(Date.now()) }],
    });
    await c.waitApplied(res.offsets);
    await page.evaluate(() => void ((globalThis as unknown as { location: { hash: string } }).location.hash = "#board=free-board"));
    await until(() => document.querySelector("[data-testid=top-row]")?.getAttribute("data-player") === "solo");
    await until(() => document.querySelector("[data-testid=recent-boards] [data-board=free-board]") !== null);
    await page.goBack();
  });

  it("shows the shards without scrolling at 1280×800, and nothing scrolls sideways at phone width", async () => {
    const sized = async (width: number, height: number) => {
      const p = await browser.newPage({ viewport: { width, height } });
      await p.goto(`${gateway.url}#board=${BOARD}`);
      await p.waitForFunction(() => document.querySelectorAll("[data-testid=shard-row]").length === 3, undefined, { timeout: LIVE_MS });
      return p;
    };
    const desk = await sized(1280, 800);
    const shardsBottom = await desk.$eval(
      ".panel.shards",
      (e) => (e as unknown as { getBoundingClientRect(): { bottom: number } }).getBoundingClientRect().bottom,
    );
    expect(shardsBottom).toBeLessThanOrEqual(800);
    await desk.screenshot({ path: SCREENSHOT, fullPage: false });
    await desk.close();
    const phone = await sized(390, 844);
    await phone.waitForSelector("[data-testid=top-row]", { timeout: LIVE_MS });
    const widths = await phone.evaluate(() => {
      const d = globalThis as unknown as { document: { documentElement: { scrollWidth: number } }; innerWidth: number };
      return [d.document.documentElement.scrollWidth, d.innerWidth];
    });
    expect(widths[0]).toBeLessThanOrEqual(widths[1]!);
    await phone.screenshot({ path: SCREENSHOT.replace(/\.png$/, "-phone.png"), fullPage: true });
    await phone.close();
    console.log(`dashboard screenshots: ${SCREENSHOT} and its -phone.png`);
  });
});
