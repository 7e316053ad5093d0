/**
 * The Mau-Mau API for TypeScript: `api` is an openapi-fetch client typed by the schema (every path,
 * body and answer), and the few things every team otherwise writes by hand are here once: token auth,
 * an `Idempotency-Key` per move reused by its retries, retries on network errors and on 503/429
 * (honouring `Retry-After`), typed refusals (`VersionConflictError`, ...), and streams that resume with
 * `Last-Event-ID` and fall back to long-poll. Needs only `fetch` (browsers, Node 18+, React Native).
 */
import createClient, { type Client } from "openapi-fetch";
import type { components, paths } from "./schema.js";
import { errorOf } from "./errors.js";
import { retryingFetch, type FetchLike, type RetryOptions } from "./retry.js";
import { fetchTransport, type SseTransport } from "./sse.js";
import { eventStream, gameLongPoll, meLongPoll, type GameFrame, type MeFrame, type StreamContext, type StreamOptions } from "./stream.js";

export type { components, paths, operations } from "./schema.js";
export * from "./errors.js";
export { retryAfterMs, retryingFetch, type RetryOptions } from "./retry.js";
export { fetchTransport, parseEvents, StreamRefused, StreamUnsupported, xhrTransport, type SseEvent, type SseRequest, type SseTransport } from "./sse.js";
export type { GameFrame, LedgerMove, MeFrame, Notification, StreamOptions } from "./stream.js";

export type Schemas = components["schemas"];
export type Action = Schemas["Action"];
export type GameView = Schemas["GameView"];
export type MoveResult = Schemas["MoveResult"];

/** The version of the API this SDK was generated from (the schema's `info.version`). */
export const API_VERSION = "1.1.0";

export interface MauMauOptions {
  /** The server, such as `https://maumau.example.org` (no trailing slash, no `/api/v1`). */
  baseUrl: string;
  /** The token (`Authorization: Token <key>`), or a function asked before each request. */
  token?: string | (() => string | undefined);
  /** `fetch` of the platform (default: `globalThis.fetch`). */
  fetch?: FetchLike;
  retry?: RetryOptions;
  /** How streams are read (default: `fetchTransport()`; React Native: `xhrTransport()`). */
  sse?: SseTransport;
  /** Answers in this language (`Accept-Language`: en, de, fr). */
  language?: string;
  /** Makes the `Idempotency-Key` of a move (default: a random UUID). */
  newIdempotencyKey?: () => string;
}

export interface MoveOptions {
  /** Applied only if the game is still at this version, else `VersionConflictError`. */
  expectedVersion?: number;
  /** Reuse a key to resend a move whose answer you never got (the server answers the first result). */
  idempotencyKey?: string;
  signal?: AbortSignal;
}

export interface Moved {
  view: MoveResult;
  /** The key the move was sent with (all its retries used it too). */
  idempotencyKey: string;
  /** True when the server answered with the stored result of an earlier request with this key. */
  replayed: boolean;
}

function randomKey(): string {
  const crypto = (globalThis as { crypto?: { randomUUID?: () => string } }).crypto;
  if (crypto?.randomUUID !== undefined) return crypto.randomUUID();
  let key = "";
  for (let i = 0; i < 32; i++) key += Math.floor(Math.random() * 16).toString(16);
  return key;
}

/** An answer of `api` as its data, or its refusal thrown as a typed error. */
export async function unwrap<T>(call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  const { data, error, response } = await call;
  if (!response.ok) throw errorOf(response.status, error);
  return data as T;
}

export interface MauMau {
  /** Every operation of the schema, typed: `api.GET("/api/v1/games/{game_id}", {params: {path: {game_id}}})`. */
  api: Client<paths>;
  setToken(token: string | undefined): void;
  /** Posts a move with its own `Idempotency-Key`; a retry after a lost answer cannot apply it twice. */
  move(gameId: number, action: Action, options?: MoveOptions): Promise<Moved>;
  /** The round's ledger as it happens (`GET /games/{id}/stream`), resumed after any cut. */
  gameStream(gameId: number, options?: StreamOptions): AsyncGenerator<GameFrame>;
  /** The caller's notifications (`GET /me/stream`), resumed after any cut. */
  meStream(options?: StreamOptions): AsyncGenerator<MeFrame>;
}

export function createMauMau(options: MauMauOptions): MauMau {
  const baseUrl = options.baseUrl.replace(/\/+$/, "");
  const plainFetch: FetchLike = options.fetch ?? ((request) => globalThis.fetch(request));
  const fetchWithRetries = retryingFetch(plainFetch, options.retry);
  let token = options.token;
  const tokenNow = () => (typeof token === "function" ? token() : token);
  const headers = (): Record<string, string> => {
    const found: Record<string, string> = {};
    const key = tokenNow();
    if (key !== undefined) found.Authorization = `Token ${key}`;
    if (options.language !== undefined) found["Accept-Language"] = options.language;
    return found;
  };
  const api = createClient<paths>({ baseUrl, fetch: fetchWithRetries });
  api.use({
    onRequest({ request }) {
      for (const [name, value] of Object.entries(headers())) {
        if (!request.headers.has(name)) request.headers.set(name, value);
      }
      return request;
    },
  });
  const context: StreamContext = {
    baseUrl,
    headers,
    fetch: fetchWithRetries,
    transport: options.sse ?? fetchTransport((input, init) => plainFetch(new Request(input, init))),
  };
  const newKey = options.newIdempotencyKey ?? randomKey;

  return {
    api,
    setToken(next) {
      token = next;
    },
    async move(gameId, action, moveOptions = {}) {
      const idempotencyKey = moveOptions.idempotencyKey ?? newKey();
      const body: Action = moveOptions.expectedVersion === undefined
        ? action
        : { ...action, expected_version: moveOptions.expectedVersion };
      const { data, error, response } = await api.POST("/api/v1/games/{game_id}/actions", {
        params: { path: { game_id: gameId }, header: { "Idempotency-Key": idempotencyKey } },
        body,
        signal: moveOptions.signal,
      });
      if (data === undefined) throw errorOf(response.status, error);
      return { view: data, idempotencyKey, replayed: response.headers.get("Idempotent-Replayed") === "true" };
    },
    gameStream(gameId, streamOptions = {}) {
      const longPoll = gameLongPoll(context, gameId, streamOptions.signal);
      return eventStream(context, `/api/v1/games/${gameId}/stream`, streamOptions, longPoll) as AsyncGenerator<GameFrame>;
    },
    meStream(streamOptions = {}) {
      const longPoll = meLongPoll(context, streamOptions.signal);
      return eventStream(context, "/api/v1/me/stream", streamOptions, longPoll) as AsyncGenerator<MeFrame>;
    },
  };
}
