import type { components } from "./schema.js";

/** Every non-2xx answer of the API: `{"error": {"code", "message", "details"}}`. */
export type ApiErrorBody = components["schemas"]["ApiError"];
export type ErrorCode = components["schemas"]["ErrorCode"];

/** A refusal of the API, with its stable `code` (switch on it, not on `message`). */
export class MauMauError extends Error {
  readonly status: number;
  readonly code: ErrorCode;
  readonly details: ApiErrorBody["error"]["details"];
  readonly body: ApiErrorBody;

  constructor(status: number, body: ApiErrorBody) {
    super(`${status} ${body.error.code}: ${body.error.message}`);
    this.name = "MauMauError";
    this.status = status;
    this.code = body.error.code;
    this.details = body.error.details;
    this.body = body;
  }
}

/**
 * 409 `version_conflict`: the move carried `expected_version` and the game has moved on. Reload the
 * view (`currentVersion` is the game's version now) and decide again; never resend the same move blindly.
 */
export class VersionConflictError extends MauMauError {
  readonly currentVersion: number | undefined;

  constructor(status: number, body: ApiErrorBody) {
    super(status, body);
    this.name = "VersionConflictError";
    const details = body.error.details as components["schemas"]["VersionConflictDetails"];
    this.currentVersion = typeof details.version === "number" ? details.version : undefined;
  }
}

/** 422 `illegal_move`: `reason` is the rule's stable code (`wish_required`, `suit_or_rank`, ...). */
export class IllegalMoveError extends MauMauError {
  readonly reason: string | undefined;

  constructor(status: number, body: ApiErrorBody) {
    super(status, body);
    this.name = "IllegalMoveError";
    const details = body.error.details as components["schemas"]["IllegalMoveDetails"];
    this.reason = typeof details.reason === "string" ? details.reason : undefined;
  }
}

/** The request never got an answer (after the retries): the network, or the server is gone. */
export class NetworkError extends Error {
  readonly cause: unknown;

  constructor(message: string, cause: unknown) {
    super(message);
    this.name = "NetworkError";
    this.cause = cause;
  }
}

function isErrorBody(value: unknown): value is ApiErrorBody {
  if (typeof value !== "object" || value === null || !("error" in value)) return false;
  const error = (value as { error: unknown }).error;
  return typeof error === "object" && error !== null && "code" in error && "message" in error;
}

/** The typed error of an answer: a `VersionConflictError`, an `IllegalMoveError` or a `MauMauError`. */
export function errorOf(status: number, body: unknown): MauMauError {
  const shaped: ApiErrorBody = isErrorBody(body)
    ? body
    : { error: { code: "server_error", message: `HTTP ${status}`, details: {} } };
  if (shaped.error.code === "version_conflict") return new VersionConflictError(status, shaped);
  if (shaped.error.code === "illegal_move") return new IllegalMoveError(status, shaped);
  return new MauMauError(status, shaped);
}
