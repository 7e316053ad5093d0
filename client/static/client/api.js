// @ts-check
// The API over fetch: the token, the caller's language, errors in the API's shape, and
// server-sent events read from a fetch body (EventSource cannot send the Authorization header).
// Types come from the declarations openapi-typescript generates from the schema ("maumau-schema":
// sdk/typescript/src/schema.ts, see client/tsconfig.json); `tsc --checkJs --strict -p client/tsconfig.json`
// checks every module of the client (docs/clients.md), and the browser ignores them (no build step).

/** @typedef {import("maumau-schema").components["schemas"]} Schemas */
/** @typedef {Schemas["ApiError"]["error"]} ErrorBody */
/** @typedef {Schemas["ErrorCode"] | "offline" | "http_error"} ClientErrorCode  the API's codes, and the client's own two */
/**
 * The `data:` of a stream's frames: a ledger row, a chat line, the end of a round or stream, a notification.
 * @typedef {Exclude<Schemas["GameStreamFrame"] | Schemas["MeStreamFrame"], Schemas["KeepAliveFrame"]>["data"]
 *   | {reason: string}} StreamData
 */

const BASE = "/api/v1/";
const TOKEN_KEY = "maumau.token";
const STALL_MS = 40000;  // missed keep-alives (the server sends one every STREAMS_KEEPALIVE_SECONDS, 15 s)

export class ApiError extends Error {
  /**
   * @param {number} status  0: no answer (offline)
   * @param {{error?: Partial<Omit<ErrorBody, "code">> & {code?: ClientErrorCode}} | null} body
   */
  constructor(status, body) {
    const error = (body && body.error) || {};
    super(error.message || `HTTP ${status}`);
    this.status = status;
    /** @type {ClientErrorCode} */
    this.code = error.code || "http_error";
    /** @type {ErrorBody["details"]} */
    this.details = error.details || {};
  }
}

let language = "en";
/** @param {string} value */
export function setLanguage(value) { language = value; }

export function token() { return localStorage.getItem(TOKEN_KEY); }
/** @param {string | null} value */
export function setToken(value) {
  if (value) localStorage.setItem(TOKEN_KEY, value);
  else localStorage.removeItem(TOKEN_KEY);
}

/**
 * @param {Record<string, string>} extra
 * @returns {Record<string, string>}
 */
function headers(extra = {}) {
  /** @type {Record<string, string>} */
  const result = { "Accept": "application/json", "Accept-Language": language, ...extra };
  const key = token();
  if (key) result.Authorization = `Token ${key}`;
  return result;
}

/**
 * One request; the answer's JSON (null for 204). Untyped on purpose: callers name the schema's type
 * of what they read with a JSDoc type annotation (Schemas["GameView"], ...).
 * @param {"GET" | "POST" | "PUT" | "PATCH" | "DELETE"} method
 * @param {string} path  after /api/v1/
 * @param {unknown} [body]
 * @returns {Promise<any>}
 */
export async function api(method, path, body) {
  /** @type {RequestInit & {headers: Record<string, string>}} */
  const init = { method, headers: headers() };
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  let response;
  try {
    response = await fetch(BASE + path, init);
  } catch (exc) {
    throw new ApiError(0, { error: { code: "offline", message: String(exc) } });
  }
  if (response.status === 204) return null;
  const data = await response.json().catch(() => null);
  if (!response.ok) throw new ApiError(response.status, data);
  return data;
}

// --- what the screens read, kept for a start without the network ------------------------------
// Each successful read (the lobby's games and tables, leagues, standings, ...) is kept in the browser's
// storage with its time, for this player only; offline (the browser says so), a read answers from there and `onSaved`
// listeners learn the time of the oldest answer shown, so the screen can say "as of". Writes never are.
const SAVED_PREFIX = "maumau.saved:";
const SAVED_MAX = 80;  // answers kept (the oldest are dropped)
const SAVED_MAX_CHARS = 200000;  // an answer larger than this is not kept
/** @type {Set<(at: number) => void>} */
const savedListeners = new Set();

/** @param {(at: number) => void} listener */
export function onSaved(listener) {
  savedListeners.add(listener);
  return () => savedListeners.delete(listener);
}

/** @param {string} path @param {unknown} data */
function keep(path, data) {
  try {
    const text = JSON.stringify({ at: Date.now(), data });
    if (text.length > SAVED_MAX_CHARS) return;
    localStorage.setItem(SAVED_PREFIX + path, text);
    const keys = Object.keys(localStorage).filter((key) => key.startsWith(SAVED_PREFIX));
    if (keys.length > SAVED_MAX) {
      const ages = keys.map((key) => [key, (JSON.parse(localStorage.getItem(key) || "{}") || {}).at || 0]).sort((x, y) => x[1] - y[1]);
      for (const [key] of ages.slice(0, keys.length - SAVED_MAX)) localStorage.removeItem(key);
    }
  } catch (exc) { /* storage full or refused: nothing is kept */ }
}

export function forgetSaved() {
  for (const key of Object.keys(localStorage)) if (key.startsWith(SAVED_PREFIX)) localStorage.removeItem(key);
}

/** @param {string} path @returns {Promise<any>} */
export async function get(path) {
  try {
    const data = await api("GET", path);
    keep(path, data);
    return data;
  } catch (exc) {
    // Only when the browser knows it is offline: a single read the network cut while online stays an error.
    const saved = exc instanceof ApiError && exc.status === 0 && !navigator.onLine ? localStorage.getItem(SAVED_PREFIX + path) : null;
    if (!saved) throw exc;
    const { at, data } = JSON.parse(saved);
    for (const listener of [...savedListeners]) listener(at);
    return data;
  }
}
export const post = (/** @type {string} */ path, /** @type {unknown} */ body = {}) => api("POST", path, body);
export const del = (/** @type {string} */ path, /** @type {unknown} */ body = undefined) => api("DELETE", path, body);

// One server-sent event stream that reconnects by itself (`path` may be a function, asked again at
// each connection, for query parameters that move on, such as the chat's messages_after). `id:` lines are remembered and sent back
// as Last-Event-ID, so a dropped connection resumes after the last event it delivered: no event is
// lost or repeated. `onEvent(kind, data, id)` gets each event; `onState("open"|"lost"|"ended")`.
/**
 * @typedef {object} StreamHandlers
 * @property {string | number | null} [after]  resume after this event id
 * @property {(kind: string, data: StreamData, id: string | null) => void} onEvent
 * @property {(state: "open" | "lost" | "ended", error?: ApiError) => void} [onState]
 */
/**
 * @param {string | (() => string)} path  after /api/v1/
 * @param {StreamHandlers} handlers
 * @returns {{close(): void, pause(): void, resume(): void, readonly lastId: string | number | null}}
 */
export function openStream(path, { after = null, onEvent, onState = () => {} }) {
  let lastId = after;
  let retry = 1000;
  let stopped = false;
  /** @type {AbortController | null} */
  let controller = null;
  // pause(): the connection is closed (the server learns at once that nobody reads it) until resume().
  let paused = false;
  /** @type {(value?: unknown) => void} */
  let wake = () => {};

  /** @returns {Promise<boolean>} true when the stream ended (`event: end`) */
  async function connect() {
    controller = new AbortController();
    /** @type {Record<string, string>} */
    const extra = { Accept: "text/event-stream" };
    if (lastId !== null && lastId !== undefined) extra["Last-Event-ID"] = String(lastId);
    const target = typeof path === "function" ? path() : path;
    const response = await fetch(BASE + target, { headers: headers(extra), signal: controller.signal, cache: "no-store" });
    if (!response.ok) {
      const data = await response.json().catch(() => null);
      throw new ApiError(response.status, data);
    }
    onState("open");
    if (!response.body) throw new ApiError(0, { error: { code: "offline", message: "no stream body" } });
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    let buffer = "";
    // The server writes at least a keep-alive every 15 s: silence for longer than STALL_MS is a dead
    // connection (a phone that changed networks): drop it and reconnect (then the screen reads again).
    const mine = controller;
    let stall = setTimeout(() => mine.abort(), STALL_MS);
    for (;;) {
      let part;
      try { part = await reader.read(); } finally { clearTimeout(stall); }
      const { value, done } = part;
      if (done) return false;
      stall = setTimeout(() => mine.abort(), STALL_MS);
      buffer += decoder.decode(value, { stream: true }).replace(/\r\n?/g, "\n");
      let cut;
      while ((cut = buffer.indexOf("\n\n")) >= 0) {
        const block = buffer.slice(0, cut);
        buffer = buffer.slice(cut + 2);
        if (dispatch(block)) { clearTimeout(stall); return true; }
      }
    }
  }

  /** @param {string} block  one event's lines */
  function dispatch(block) {
    let kind = "message", id = null;
    const data = [];
    for (const line of block.split("\n")) {
      if (!line || line.startsWith(":")) continue;
      const colon = line.indexOf(":");
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
      if (field === "event") kind = value;
      else if (field === "data") data.push(value);
      else if (field === "id") id = value;
      else if (field === "retry" && /^\d+$/.test(value)) retry = Number(value);
    }
    if (!data.length) return false;
    if (id !== null) lastId = id;
    onEvent(kind, /** @type {StreamData} */ (JSON.parse(data.join("\n"))), id);
    return kind === "end";
  }

  (async () => {
    let delay = retry;
    while (!stopped) {
      if (paused) {
        await new Promise((resolve) => { wake = resolve; });
        continue;
      }
      try {
        if (await connect()) { onState("ended"); return; }
        delay = retry;
      } catch (exc) {
        if (stopped) return;
        if (paused) continue;
        if (exc instanceof ApiError && exc.status >= 400 && exc.status < 500) { onState("ended", exc); return; }
        delay = Math.min(delay * 2, 15000);
      }
      if (stopped) return;
      if (paused) continue;
      onState("lost");
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  })();

  return {
    close() { stopped = true; if (controller) controller.abort(); wake(); },
    pause() { if (paused || stopped) return; paused = true; if (controller) controller.abort(); },
    resume() { if (!paused) return; paused = false; wake(); },
    get lastId() { return lastId; },
  };
}
