// How numbers and times are shown. The API's 64-bit integers are strings (proto3 JSON).

const integer = new Intl.NumberFormat("en-US");

export const count = (v) => integer.format(Number(v ?? 0));

export function bytes(v) {
  const n = Number(v ?? 0);
  if (n < 1024) return `${n} B`;
  const units = ["KiB", "MiB", "GiB", "TiB"];
  let x = n / 1024;
  let u = 0;
  for (; x >= 1024 && u < units.length - 1; u++) x /= 1024;
  return `${x.toFixed(1)} ${units[u]}`;
}

/** A Unix-ms time of today as HH:MM:SS, of another day as its date and time. */
export function time(ms) {
  const n = Number(ms ?? 0);
  if (!n) return "—";
  const d = new Date(n);
  const today = new Date().toDateString() === d.toDateString();
  return today ? d.toLocaleTimeString("en-GB") : d.toLocaleString("en-GB", { dateStyle: "short", timeStyle: "short" });
}

export const seconds = (ms) => (ms === undefined || ms === null ? "—" : `${(Number(ms) / 1000).toFixed(1)} s`);

/** An element with text and attributes. */
export function el(tag, text = "", attrs = {}) {
  const e = document.createElement(tag);
  if (text !== "") e.textContent = text;
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  return e;
}
