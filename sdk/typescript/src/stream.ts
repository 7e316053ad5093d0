import type { components } from "./schema.js";
import { errorOf, MauMauError } from "./errors.js";
import { retryAfterMs, sleep, type Sleep } from "./retry.js";
import { parseEvents, StreamRefused, StreamUnsupported, type SseTransport } from "./sse.js";

type Schemas = components["schemas"];
export type LedgerMove = Schemas["LedgerMove"];
export type Notification = Schemas["Notification"];

/** A frame of `GET /games/{id}/stream`: a ledger row (`id` = its seq), a chat line, or the end. */
export type GameFrame =
  | { event: "move"; id: number; data: LedgerMove }
  | { event: "message"; data: Schemas["Message"] }
  | { event: "end"; data: Schemas["GameStreamEnd"] & { reason?: string } };

/** A frame of `GET /me/stream`: a notification (`event` = its kind, `id` = its id), or the end (the token is gone). */
export type MeFrame =
  | { event: Schemas["NotificationKind"]; id: number; data: Notification }
  | { event: "end"; data: { reason?: string } };

export interface StreamOptions {
  /** Resume after this event id (a ledger seq, a notification id): the first request sends it as
   * `Last-Event-ID`; without it the stream starts with what happens from now on. */
  lastEventId?: number;
  /** Stops the stream (the generator returns). */
  signal?: AbortSignal;
  /** The longest wait between two reconnects (default 30 s; the server asks for 2 s with `retry:`). */
  maxReconnectDelayMs?: number;
  /** `"sse"` (default): server-sent events, long-polling only where the platform cannot stream;
   * `"long-poll"`: long-poll from the start. */
  mode?: "sse" | "long-poll";
  /** Told each time the stream (re)connects, with the id it resumes after. */
  onConnect?: (lastEventId: number | undefined, via: "sse" | "long-poll") => void;
}

/** What the stream helper needs of the client. */
export interface StreamContext {
  baseUrl: string;
  headers: () => Record<string, string>;
  transport: SseTransport;
  fetch: (request: Request) => Promise<Response>;
  sleep?: Sleep;
}

const FATAL = new Set([400, 401, 403, 404]);

/**
 * The frames of a server-sent event stream, resumed across lost connections and server restarts: each
 * reconnect sends `Last-Event-ID` = the last id received, so the server sends what came after it, once.
 * Keep-alive comments are not frames. Ends after an `end` frame or when `signal` aborts; throws a
 * `MauMauError` for a refusal that a retry cannot mend (400, 401, 403, 404).
 */
export async function* eventStream(context: StreamContext, path: string, options: StreamOptions = {},
                                   longPoll?: (after: number | undefined) => AsyncGenerator<RawFrame>): AsyncGenerator<RawFrame> {
  const wait = context.sleep ?? sleep;
  const controller = new AbortController();
  options.signal?.addEventListener("abort", () => controller.abort(options.signal?.reason), { once: true });
  let lastId = options.lastEventId;
  let retryMs = 2000;
  let failures = 0;
  const maxDelay = options.maxReconnectDelayMs ?? 30_000;
  if (options.mode === "long-poll" && longPoll !== undefined) {
    options.onConnect?.(lastId, "long-poll");
    yield* longPoll(lastId);
    return;
  }
  while (!controller.signal.aborted) {
    const headers: Record<string, string> = { ...context.headers(), Accept: "text/event-stream" };
    if (lastId !== undefined) headers["Last-Event-ID"] = String(lastId);
    let delay: number | undefined = undefined;
    try {
      const chunks = await context.transport({ url: context.baseUrl + path, headers, signal: controller.signal });
      options.onConnect?.(lastId, "sse");
      for await (const event of parseEvents(chunks, (ms) => (retryMs = ms))) {
        failures = 0;
        const data: unknown = event.data === "" ? null : JSON.parse(event.data);
        const id = event.id === undefined ? undefined : Number(event.id);
        if (id !== undefined) lastId = id;
        yield { event: event.event, id, data };
        if (event.event === "end") return;
      }
    } catch (error) {
      if (controller.signal.aborted) return;
      if (error instanceof StreamUnsupported && longPoll !== undefined) {
        options.onConnect?.(lastId, "long-poll");
        yield* longPoll(lastId);
        return;
      }
      if (error instanceof StreamRefused) {
        if (FATAL.has(error.status)) throw errorOf(error.status, error.body);
        delay = retryAfterMs(error.retryAfter);
      }
      if (error instanceof MauMauError) throw error;
    }
    failures += 1;
    const backoff = Math.min(maxDelay, delay ?? retryMs * 2 ** Math.min(failures - 1, 5));
    try {
      await wait(backoff, controller.signal);
    } catch {
      return;
    }
  }
}

/** A frame before it is narrowed to the stream's type. */
export interface RawFrame {
  event: string;
  id?: number | undefined;
  data: unknown;
}

/** A GET of the API that answers 200 (or 304, a long-poll that ran out); any other answer is thrown as its error. */
async function answerOf(context: StreamContext, path: string, signal: AbortSignal | undefined): Promise<Response> {
  const answer = await context.fetch(new Request(context.baseUrl + path, { headers: context.headers(), signal }));
  if (answer.status !== 200 && answer.status !== 304) throw errorOf(answer.status, await answer.json().catch(() => undefined));
  return answer;
}

/**
 * The game stream by long-poll, for where server-sent events cannot come through: the ledger rows after
 * `after` (`GET /games/{id}/events`), then a wait for the next version (`GET /games/{id}?wait=`), with
 * the same frames and ids as the event stream.
 */
export function gameLongPoll(context: StreamContext, gameId: number, signal: AbortSignal | undefined,
                             waitSeconds = 30): (after: number | undefined) => AsyncGenerator<RawFrame> {
  const get = (path: string) => answerOf(context, path, signal);
  return async function* (after) {
    let position = after;
    if (position === undefined) {
      const view = (await (await get(`/api/v1/games/${gameId}`)).json()) as Schemas["GameView"];
      position = view.version;
    }
    while (!signal?.aborted) {
      const ledger = (await (await get(`/api/v1/games/${gameId}/events?after=${position}`)).json()) as Schemas["Ledger"];
      for (const move of ledger.moves) {
        position = move.seq;
        yield { event: "move", id: move.seq, data: move };
      }
      if (ledger.moves.length > 0) continue;
      if (ledger.status === "finished") {
        yield { event: "end", data: { game: gameId, status: ledger.status, version: position } };
        return;
      }
      await get(`/api/v1/games/${gameId}?wait=${waitSeconds}&after=${ledger.version}`);
    }
  };
}

/**
 * The caller's notifications by long-poll (`GET /me/inbox?after=&wait=`), for where server-sent events
 * cannot come through: the same frames and ids as `GET /me/stream`. Each answer's `after` is sent with
 * the next request, so every notification comes once.
 */
export function meLongPoll(context: StreamContext, signal: AbortSignal | undefined,
                           waitSeconds = 30): (after: number | undefined) => AsyncGenerator<RawFrame> {
  return async function* (after) {
    let position = after;
    while (!signal?.aborted) {
      const query = position === undefined ? `wait=${waitSeconds}` : `after=${position}&wait=${waitSeconds}`;
      const page = (await (await answerOf(context, `/api/v1/me/inbox?${query}`, signal)).json()) as Schemas["NotificationPage"];
      for (const note of page.notifications) yield { event: note.kind, id: note.id, data: note };
      position = page.after;
    }
  };
}
