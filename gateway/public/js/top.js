// The live top: a WatchTop stream (Server-Sent Events) whose every message is the whole top at
// one instant. Rows are kept per player and updated in place — moved to their new position, their
// rank and score rewritten — and a row whose player arrived or whose score changed flashes (those
// only shifted by it do not); rows that left the top go. Nothing is reloaded.
import { boardPath, get, stream } from "./api.js";
import { count, el, time } from "./format.js";

export class LiveTop {
  constructor({ tbody, meta, onState }) {
    Object.assign(this, { tbody, meta, onState });
    this.source = undefined;
    this.me = "";
  }

  /** Watches `board` (period, window) from now on, `limit` entries deep. */
  watch(board, where, limit) {
    this.stop();
    this.tbody.replaceChildren();
    this.meta.textContent = "";
    const params = { limit, ...where };
    this.source = stream({
      path: boardPath(board, "watch/top"),
      params,
      event: "top",
      onMessage: (m) => this.show(m),
      onState: this.onState,
      explain: () => get(boardPath(board, "top"), params),
    });
  }

  stop() {
    this.source?.close();
    this.source = undefined;
  }

  /** Marks the searched player's row. */
  mark(playerId) {
    this.me = playerId;
    for (const row of this.tbody.rows) row.classList.toggle("me", row.dataset.player === playerId);
  }

  show(m) {
    const first = this.tbody.rows.length === 0;
    const existing = new Map([...this.tbody.rows].map((r) => [r.dataset.player, r]));
    m.entries.forEach((e, i) => {
      let row = existing.get(e.playerId);
      existing.delete(e.playerId);
      const changed = !row || row.dataset.score !== e.score;
      row ??= newRow(e.playerId);
      row.dataset.rank = e.rank;
      row.dataset.score = e.score;
      const [rank, , score, reached] = row.cells;
      rank.textContent = e.rank;
      score.textContent = count(e.score);
      reached.textContent = time(e.reachedAtMs);
      row.classList.toggle("me", e.playerId === this.me);
      if (this.tbody.rows[i] !== row) this.tbody.insertBefore(row, this.tbody.rows[i] ?? null);
      if (changed && !first) flash(row);
    });
    for (const gone of existing.values()) gone.remove();
    this.meta.textContent = `${count(m.total)} players · update #${m.sequence} · read at ${time(m.readAtMs)}`;
  }
}

function newRow(playerId) {
  const row = el("tr", "", { "data-testid": "top-row", "data-player": playerId });
  row.append(el("td", "", { class: "num" }), el("td", playerId, { title: playerId }), el("td", "", { class: "num" }), el("td"));
  return row;
}

function flash(row) {
  row.classList.remove("flash");
  void row.offsetWidth; // restart the animation
  row.classList.add("flash");
}
