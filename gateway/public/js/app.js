// The dashboard: boards and their periods and windows, the live top, a player's rank and
// neighbourhood, the board's histogram, the shards' health and the last minutes' plots. What is
// shown lives in the URL's hash (#board=arena&period=&window=&player=alice): a reload or a shared
// link shows the same, each change is a history entry (Back and Forward go through them), and a
// hash typed or pasted into an open page is followed.
import { boardPath, get, token } from "./api.js";
import { el, time } from "./format.js";
import { HistogramView } from "./histogram.js";
import { PlayerView } from "./player.js";
import { ShardsView } from "./shards.js";
import { LiveTop } from "./top.js";
import { TrendsView } from "./trends.js";

const $ = (id) => document.getElementById(id);
const BOARDS_POLL_MS = 10_000;
const fromHash = () => Object.fromEntries(new URLSearchParams(location.hash.slice(1)));
const state = fromHash();
let boards = []; // defined boards: {name, rules}
let applied = location.hash; // the hash the page shows

const live = (s, detail) => {
  $("live").textContent = s === "live" ? "live" : s === "reconnecting" ? "reconnecting…" : `stopped${detail ? `: ${detail}` : ""}`;
  $("live").className = `pill ${s === "live" ? "live" : "down"}`;
  $("live").title = detail ?? "";
};
const top = new LiveTop({ tbody: $("top"), meta: $("top-meta"), onState: live });
const histogram = new HistogramView({ box: $("histogram"), meta: $("histogram-meta") });
const player = new PlayerView({
  standing: $("standing"),
  around: $("around"),
  events: $("events"),
  onState: () => {},
  onEntry: (e) => histogram.mark(e && Number(e.score)),
});
const shards = new ShardsView({ tbody: $("shards"), meta: $("shards-meta") });
const trends = new TrendsView({ writes: $("trend-writes"), lag: $("trend-lag"), size: $("trend-size"), meta: $("trends-meta") });

const where = () => ({ period: state.period ?? "", window: state.window ?? "" });
/** Writes `state` into the hash: a new history entry, or (`replace`) the current one. */
function saveHash(replace = false) {
  const hash = `#${new URLSearchParams(Object.entries(state).filter(([, v]) => v))}`;
  if (hash !== location.hash) history[replace ? "replaceState" : "pushState"](null, "", hash);
  applied = location.hash;
}

async function loadBoards() {
  let recent = [];
  try {
    ({ boards, recent } = await get("boards"));
    $("boards-note").textContent = boards.length ? "" : "No board has a definition; boards made by writes alone are listed once read.";
  } catch (err) {
    $("boards-note").textContent = `Defined boards unknown (${err.code}: ${err.message}); open one by name.`;
  }
  const link = (name, detail, testid) => {
    const button = el("button", "", { "data-testid": testid, "data-board": name });
    button.append(name, " ", el("small", detail));
    button.classList.toggle("selected", name === state.board);
    button.addEventListener("click", () => void openBoard(name));
    return el("li").appendChild(button).parentElement;
  };
  $("boards").replaceChildren(...boards.map((b) => link(b.name, describe(b.rules), "board-link")));
  $("recent-title").hidden = recent.length === 0;
  $("recent").replaceChildren(...recent.map((b) => link(b.name, `read ${time(b.lastReadMs)}`, "recent-board-link")));
}

/** "daily · 2 windows · histogram" */
function describe(rules) {
  const parts = [
    rules.period && rules.period !== "PERIOD_KIND_UNSPECIFIED" ? rules.period.replace("PERIOD_KIND_", "").toLowerCase() : "all-time",
  ];
  if (rules.order === "SORT_ORDER_LOWER_IS_BETTER") parts.push("lower wins");
  if (rules.windows?.length) parts.push(`${rules.windows.length} window${rules.windows.length > 1 ? "s" : ""}`);
  if (rules.histogramBounds?.length) parts.push("histogram");
  return parts.join(" · ");
}

async function openBoard(name, keep = false) {
  if (!keep) Object.assign(state, { board: name, period: "", window: "" });
  saveHash(keep);
  $("board-title").textContent = name;
  for (const b of document.querySelectorAll("[data-board]")) b.classList.toggle("selected", b.dataset.board === name);
  const def = boards.find((b) => b.name === name);
  await loadPeriods(name, def);
  show();
}

async function loadPeriods(name, def) {
  const periods = await get(boardPath(name, "periods")).then(
    (p) => p.periods,
    () => [],
  );
  $("period-field").hidden = periods.length === 0;
  $("period").replaceChildren(...periods.map((p, i) => el("option", i === 0 ? `${p.id} (current)` : p.id, { value: i === 0 ? "" : p.id })));
  $("period").value = state.period ?? "";
  const windows = def?.rules.windows ?? [];
  $("window-field").hidden = windows.length === 0;
  $("window").replaceChildren(
    el("option", "— the period alone", { value: "" }),
    ...windows.map((w) => el("option", `${w.name} (${w.periods} periods)`, { value: w.name })),
  );
  $("window").value = state.window ?? "";
}

/** Everything shown for the board, period and window in `state`. */
function show() {
  const def = boards.find((b) => b.name === state.board);
  top.watch(state.board, where(), Number($("top-limit").value));
  histogram.show(state.board, where(), (def?.rules.histogramBounds?.length ?? 0) > 0);
  histogram.mark(undefined);
  trends.show(state.board, where());
  if (state.player) void findPlayer(state.player, true);
  else {
    $("player").value = "";
    top.mark("");
    player.clear();
  }
}

async function findPlayer(id, replace = false) {
  Object.assign(state, { player: id });
  saveHash(replace);
  $("player").value = id;
  top.mark(id);
  await player.show(state.board, where(), id);
}

$("open-board").addEventListener("submit", (e) => {
  e.preventDefault();
  const name = $("board-name").value.trim();
  if (name) void openBoard(name);
});
$("search").addEventListener("submit", (e) => {
  e.preventDefault();
  const id = $("player").value.trim();
  if (id) void findPlayer(id);
});
$("period").addEventListener("change", () => (Object.assign(state, { period: $("period").value }), saveHash(), show()));
$("window").addEventListener("change", () => (Object.assign(state, { window: $("window").value }), saveHash(), show()));
$("top-limit").addEventListener("change", () => top.watch(state.board, where(), Number($("top-limit").value)));
$("token").value = token.get();
$("token-form").addEventListener("submit", (e) => {
  e.preventDefault();
  token.set($("token").value.trim());
  location.reload();
});

/** Shows what the hash says now (Back, Forward, or a hash typed into the address bar). */
async function followHash() {
  if (location.hash === applied) return;
  applied = location.hash;
  const next = fromHash();
  const boardChanged = (next.board || "") !== (state.board || "");
  for (const k of Object.keys(state)) delete state[k];
  Object.assign(state, next);
  if (!state.board) state.board = boards[0]?.name || "global";
  if (boardChanged) await openBoard(state.board, true);
  else {
    $("period").value = state.period ?? "";
    $("window").value = state.window ?? "";
    show();
  }
}
addEventListener("hashchange", () => void followHash());
addEventListener("popstate", () => void followHash());

await loadBoards();
shards.start();
setInterval(() => void loadBoards(), BOARDS_POLL_MS);
state.board ||= boards[0]?.name || "global";
await openBoard(state.board, true);
