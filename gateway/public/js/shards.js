// Each shard's readiness, lag and size (GET /api/status: the router's GetClusterStatus, as the
// gateway projects it), polled every two seconds.
import { get } from "./api.js";
import { bytes, count, el, seconds, time } from "./format.js";

const POLL_MS = 2000;
const READINESS = {
  SHARD_READINESS_SERVING: ["serving", "ready"],
  SHARD_READINESS_UNAVAILABLE: ["refusing reads", "refusing"],
  SHARD_READINESS_MISCONFIGURED: ["misconfigured", "refusing"],
};

export class ShardsView {
  constructor({ tbody, meta }) {
    Object.assign(this, { tbody, meta });
    this.timer = undefined;
  }

  start() {
    this.stop();
    const poll = () =>
      get("status").then(
        (s) => this.draw(s),
        (err) => {
          this.meta.replaceChildren(el("span", `${err.code}: ${err.message}`, { class: "error" }));
        },
      );
    void poll();
    this.timer = setInterval(poll, POLL_MS);
  }

  stop() {
    clearInterval(this.timer);
  }

  draw(s) {
    this.tbody.replaceChildren(
      ...s.shards.map((x) => {
        const [text, cls] = READINESS[x.readiness] ?? [x.readiness, "refusing"];
        const row = el("tr", "", { "data-testid": "shard-row", "data-shard": x.shardId, "data-readiness": text });
        row.append(
          el("td", x.shardId),
          el("td", text, { class: cls }),
          el("td", x.lagRecords === undefined || x.lagRecords === null ? "—" : `${count(x.lagRecords)} rec`, { class: "num" }),
          el("td", x.keys == null ? "—" : count(x.keys), { class: "num" }),
          el("td", x.usedMemoryBytes == null ? "—" : bytes(x.usedMemoryBytes), { class: "num" }),
          el("td", x.heartbeatAgeMs == null ? "none" : `${seconds(x.heartbeatAgeMs)} ago`, { class: "num" }),
        );
        return row;
      }),
    );
    this.meta.textContent = `as the router saw it at ${time(s.observedAtMs)}`;
  }
}
