// The gateway's API as the page uses it: JSON reads (with the read token, when one is set, in the
// Authorization header) and live streams (EventSource: the token as access_token, since an
// EventSource cannot set headers). Errors carry the gateway's {error: {code, message}}.

const TOKEN_KEY = "ladder-read-token";

export const token = {
  get: () => sessionStorage.getItem(TOKEN_KEY) ?? "",
  set: (t) => (t ? sessionStorage.setItem(TOKEN_KEY, t) : sessionStorage.removeItem(TOKEN_KEY)),
};

export class ApiError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

/** "/api/<path>?<params without empty values>" */
export function apiUrl(path, params = {}) {
  const query = new URLSearchParams(Object.entries(params).filter(([, v]) => v !== "" && v !== undefined && v !== null));
  const q = query.toString();
  return `/api/${path}${q ? `?${q}` : ""}`;
}

/** GET of a JSON endpoint: its body, or an ApiError. */
export async function get(path, params = {}) {
  const t = token.get();
  const res = await fetch(apiUrl(path, params), { headers: t ? { Authorization: `Bearer ${t}` } : {} });
  const body = await res.json().catch(() => undefined);
  if (!res.ok) throw new ApiError(res.status, body?.error?.code ?? "UNKNOWN", body?.error?.message ?? res.statusText);
  return body;
}

/** The path of a board's endpoint. */
export const boardPath = (board, what) => `boards/${encodeURIComponent(board)}/${what}`;

/**
 * A live stream of `event`s at `path`: `onMessage(data)` for each, `onState(state, detail)` with
 * "live", "reconnecting" or "stopped". The browser reconnects by itself (with Last-Event-ID) after
 * a drop and after a failure event saying UNAVAILABLE; any other failure stops the stream, and so
 * does a refusal of the request itself (the EventSource closes; `explain()`, a plain read of the
 * same question, then says why). close() ends it.
 */
export function stream({ path, params, event, onMessage, onState, explain }) {
  const source = new EventSource(apiUrl(path, { ...params, access_token: token.get() }));
  source.addEventListener(event, (e) => {
    onState("live");
    onMessage(JSON.parse(e.data));
  });
  source.addEventListener("failure", (e) => {
    const { error } = JSON.parse(e.data);
    if (error.code === "UNAVAILABLE") return onState("reconnecting", error.message);
    source.close();
    onState("stopped", `${error.code}: ${error.message}`);
  });
  source.onerror = () => {
    if (source.readyState !== EventSource.CLOSED) return onState("reconnecting");
    explain().then(
      () => onState("stopped", "the stream was refused"),
      (err) => onState("stopped", `${err.code}: ${err.message}`),
    );
  };
  return { close: () => source.close() };
}
