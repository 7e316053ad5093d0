/** How requests are retried: on network errors (only when a retry cannot apply a write twice) and on
 * 503 and 429 (the server changed nothing), waiting `Retry-After` when the answer gives it. */
export interface RetryOptions {
  /** Attempts in all, the first one included (default 5). */
  attempts?: number;
  /** The first backoff after a network error, doubled each time, with jitter (default 250 ms). */
  baseDelayMs?: number;
  /** The longest wait between two attempts, `Retry-After` included (default 30 s). */
  maxDelayMs?: number;
}

export type FetchLike = (input: Request) => Promise<Response>;
export type Sleep = (ms: number, signal?: AbortSignal | null) => Promise<void>;

export const sleep: Sleep = (ms, signal) =>
  new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });

/** Seconds of a `Retry-After` header (a number of seconds or an HTTP date), in milliseconds. */
export function retryAfterMs(header: string | null, now: number = Date.now()): number | undefined {
  if (header === null || header.trim() === "") return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** A write is safe to resend after a lost answer when it carries an `Idempotency-Key` (the server
 * answers the stored result) or its method is idempotent. */
function resendable(request: Request): boolean {
  return ["GET", "HEAD", "OPTIONS", "PUT", "DELETE"].includes(request.method) || request.headers.has("Idempotency-Key");
}

/** `fetch` with the retries of `options`: each attempt sends a clone of the same request (same headers,
 * so the same `Idempotency-Key`). */
export function retryingFetch(fetchImpl: FetchLike, options: RetryOptions = {}, wait: Sleep = sleep): FetchLike {
  const attempts = Math.max(1, options.attempts ?? 5);
  const base = options.baseDelayMs ?? 250;
  const max = options.maxDelayMs ?? 30_000;
  return async (request) => {
    for (let attempt = 1; ; attempt++) {
      const last = attempt >= attempts;
      let answer: Response;
      try {
        answer = await fetchImpl(request.clone());
      } catch (error) {
        if (last || request.signal.aborted || !resendable(request)) throw error;
        const backoff = Math.min(max, base * 2 ** (attempt - 1));
        await wait(backoff / 2 + Math.random() * (backoff / 2), request.signal);
        continue;
      }
      if ((answer.status === 503 || answer.status === 429) && !last) {
        const told = retryAfterMs(answer.headers.get("Retry-After"));
        const backoff = Math.min(max, told ?? base * 2 ** (attempt - 1));
        await answer.body?.cancel();
        await wait(backoff, request.signal);
        continue;
      }
      return answer;
    }
  };
}
