// One player: its exact rank (GetRank), its neighbourhood (GetAround, radius 5) and, while it is
// shown, a WatchPlayer stream that moves the rank as it changes and lists what happened (overtaken
// by, passed, entered or left the top 10, score changed); the neighbourhood is read again after
// each move.
import { boardPath, get, stream } from "./api.js";
import { count, el } from "./format.js";

const RADIUS = 5;
const TOP_K = 10;
const EVENTS_SHOWN = 6;
const EVENT_TEXT = {
  KIND_OVERTAKEN: (e) => `overtaken by ${e.otherPlayerId}`,
  KIND_PASSED: (e) => `passed ${e.otherPlayerId}`,
  KIND_ENTERED_TOP: () => `entered the top ${TOP_K}`,
  KIND_LEFT_TOP: () => `left the top ${TOP_K}`,
  KIND_SCORE_CHANGED: (e) => `score now ${count(e.score)}`,
};

export class PlayerView {
  /** onEntry(entry | undefined): after each read, the player's entry (undefined: no score). */
  constructor({ standing, around, events, onState, onEntry }) {
    Object.assign(this, { standing, around, events, onState, onEntry });
    this.source = undefined;
    this.question = undefined;
  }

  /** Shows `playerId` on `board` (period, window). */
  async show(board, where, playerId) {
    this.stop();
    this.events.replaceChildren();
    this.question = { board, where, playerId };
    const question = this.question;
    await this.read(question);
    if (this.question !== question) return;
    this.source = stream({
      path: boardPath(board, "watch/player"),
      params: { player: playerId, top_k: TOP_K, ...where },
      event: "player",
      onMessage: (m) => this.moved(question, m),
      onState: this.onState,
      explain: () => get(boardPath(board, "periods")),
    });
  }

  stop() {
    this.source?.close();
    this.source = undefined;
    this.question = undefined;
  }

  clear() {
    this.stop();
    for (const e of [this.standing, this.around, this.events]) e.replaceChildren();
  }

  /** Reads the rank and the neighbourhood, and shows them. */
  async read(q) {
    const params = { player: q.playerId, ...q.where };
    try {
      const [rank, around] = await Promise.all([
        get(boardPath(q.board, "rank"), params),
        get(boardPath(q.board, "around"), { ...params, radius: RADIUS }),
      ]);
      if (this.question !== q) return;
      this.showRank(rank.entry, rank.total);
      this.showAround(around.entries, q.playerId);
      this.onEntry(rank.entry);
    } catch (err) {
      if (this.question !== q) return;
      const text = err.code === "NOT_FOUND" ? `${q.playerId} has no score on this board` : `${err.code}: ${err.message}`;
      this.standing.replaceChildren(el("span", text, { class: err.code === "NOT_FOUND" ? "" : "error", "data-testid": "player-missing" }));
      this.around.replaceChildren();
      this.onEntry(undefined);
    }
  }

  showRank(entry, total) {
    const pct = (100 * Number(entry.rank)) / Number(total);
    const rank = el("strong", `#${count(entry.rank)}`, { "data-testid": "player-rank", "data-rank": entry.rank });
    this.standing.replaceChildren(
      rank,
      ` of ${count(total)} · ${count(entry.score)} points · top ${pct < 1 ? pct.toFixed(2) : pct.toFixed(1)}%`,
    );
  }

  showAround(entries, playerId) {
    this.around.replaceChildren(
      ...entries.map((e) => {
        const row = el("tr", "", { "data-testid": "around-row", "data-player": e.playerId, "data-rank": e.rank });
        row.append(
          el("td", e.rank, { class: "num" }),
          el("td", e.playerId, { title: e.playerId }),
          el("td", count(e.score), { class: "num" }),
        );
        row.classList.toggle("me", e.playerId === playerId);
        return row;
      }),
    );
  }

  moved(q, m) {
    if (this.question !== q) return;
    for (const e of m.events) this.events.prepend(el("li", `${EVENT_TEXT[e.kind]?.(e) ?? e.kind} → #${count(e.rank)}`));
    while (this.events.children.length > EVENTS_SHOWN) this.events.lastChild.remove();
    void this.read(q); // the rank and its neighbourhood, read together again
  }
}
