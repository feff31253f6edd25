// The dashboard: boards and their periods and windows, the live top, a player's rank and
// neighbourhood, the board's histogram, the shards' health. What is shown lives in the URL's hash
// (#board=arena&period=&window=&player=alice), so a reload or a shared link shows the same.
import { boardPath, get, token } from "./api.js";
import { el } from "./format.js";
import { HistogramView } from "./histogram.js";
import { PlayerView } from "./player.js";
import { ShardsView } from "./shards.js";
import { LiveTop } from "./top.js";

const $ = (id) => document.getElementById(id);
const state = Object.fromEntries(new URLSearchParams(location.hash.slice(1)));
let boards = []; // defined boards: {name, rules}

const live = (s, detail) => {
  $("live").textContent = s === "live" ? "live" : s === "reconnecting" ? "reconnecting…" : `stopped${detail ? `: ${detail}` : ""}`;
  $("live").className = `pill ${s === "live" ? "live" : "down"}`;
  $("live").title = detail ?? "";
};
const top = new LiveTop({ tbody: $("top"), meta: $("top-meta"), onState: live });
const histogram = new HistogramView({ box: $("histogram"), meta: $("histogram-meta") });
const player = new PlayerView({ standing: $("standing"), around: $("around"), events: $("events"), onState: () => {}, onEntry: (e) => histogram.mark(e && Number(e.score)) });
const shards = new ShardsView({ tbody: $("shards"), meta: $("shards-meta") });

const where = () => ({ period: state.period ?? "", window: state.window ?? "" });
const saveHash = () => history.replaceState(null, "", `#${new URLSearchParams(Object.entries(state).filter(([, v]) => v))}`);

async function loadBoards() {
  try {
    boards = (await get("boards")).boards;
    $("boards-note").textContent = boards.length ? "" : "No board is defined; open one by name.";
  } catch (err) {
    $("boards-note").textContent = `Defined boards unknown (${err.code}: ${err.message}); open one by name.`;
  }
  $("boards").replaceChildren(...boards.map((b) => {
    const button = el("button", "", { "data-testid": "board-link", "data-board": b.name });
    button.append(b.name, " ", el("small", describe(b.rules)));
    button.addEventListener("click", () => void openBoard(b.name));
    return el("li").appendChild(button).parentElement;
  }));
}

/** "daily · 2 windows · histogram" */
function describe(rules) {
  const parts = [rules.period && rules.period !== "PERIOD_KIND_UNSPECIFIED" ? rules.period.replace("PERIOD_KIND_", "").toLowerCase() : "all-time"];
  if (rules.order === "SORT_ORDER_LOWER_IS_BETTER") parts.push("lower wins");
  if (rules.windows?.length) parts.push(`${rules.windows.length} window${rules.windows.length > 1 ? "s" : ""}`);
  if (rules.histogramBounds?.length) parts.push("histogram");
  return parts.join(" · ");
}

async function openBoard(name, keep = false) {
  if (!keep) Object.assign(state, { board: name, period: "", window: "" });
  saveHash();
  $("board-title").textContent = name;
  for (const b of document.querySelectorAll("[data-testid=board-link]")) b.classList.toggle("selected", b.dataset.board === name);
  const def = boards.find((b) => b.name === name);
  await loadPeriods(name, def);
  show();
}

async function loadPeriods(name, def) {
  const periods = await get(boardPath(name, "periods")).then((p) => p.periods, () => []);
  $("period-field").hidden = periods.length === 0;
  $("period").replaceChildren(...periods.map((p, i) => el("option", i === 0 ? `${p.id} (current)` : p.id, { value: i === 0 ? "" : p.id })));
  $("period").value = state.period ?? "";
  const windows = def?.rules.windows ?? [];
  $("window-field").hidden = windows.length === 0;
  $("window").replaceChildren(el("option", "— the period alone", { value: "" }), ...windows.map((w) => el("option", `${w.name} (${w.periods} periods)`, { value: w.name })));
  $("window").value = state.window ?? "";
}

/** Everything shown for the board, period and window in `state`. */
function show() {
  const def = boards.find((b) => b.name === state.board);
  top.watch(state.board, where(), Number($("top-limit").value));
  histogram.show(state.board, where(), (def?.rules.histogramBounds?.length ?? 0) > 0);
  histogram.mark(undefined);
  if (state.player) void findPlayer(state.player);
  else player.clear();
}

async function findPlayer(id) {
  Object.assign(state, { player: id });
  saveHash();
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

await loadBoards();
shards.start();
await openBoard(state.board || boards[0]?.name || "global", Boolean(state.board));
