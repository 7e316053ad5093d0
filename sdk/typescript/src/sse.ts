/**
 * Server-sent events without EventSource: EventSource cannot send `Authorization`, is missing in React
 * Native, and its reconnects cannot fall back to long-poll. A transport gives the body's text as it
 * comes; the parser turns it into events.
 */

/** One event of the stream, as the server wrote it (`data` still JSON text). */
export interface SseEvent {
  event: string;
  id: string | undefined;
  data: string;
}

/** What a transport is asked to open. */
export interface SseRequest {
  url: string;
  headers: Record<string, string>;
  signal: AbortSignal;
}

/**
 * Opens `request` and gives the body's text in chunks. It throws a `StreamRefused` for a non-2xx
 * answer and a `StreamUnsupported` when the platform cannot read a body as it comes (the stream helper
 * then long-polls). Plug your own for a platform without streaming fetch (React Native: `xhrTransport`).
 */
export type SseTransport = (request: SseRequest) => Promise<AsyncIterable<string>>;

/** The server answered the stream's request with an error status. */
export class StreamRefused extends Error {
  constructor(readonly status: number, readonly body: unknown, readonly retryAfter: string | null) {
    super(`the stream was refused: HTTP ${status}`);
    this.name = "StreamRefused";
  }
}

/** The platform cannot read a streamed body (or a proxy did not pass the event stream through). */
export class StreamUnsupported extends Error {
  constructor(message: string) {
    super(message);
    this.name = "StreamUnsupported";
  }
}

async function refusal(response: Response): Promise<StreamRefused> {
  let body: unknown = undefined;
  try {
    body = await response.json();
  } catch {
    body = undefined;
  }
  return new StreamRefused(response.status, body, response.headers.get("Retry-After"));
}

/** The default transport: `fetch` and the body's `ReadableStream` (browsers, Node 18+, Deno, Bun). */
export function fetchTransport(fetchImpl: typeof fetch = (input, init) => fetch(input, init)): SseTransport {
  return async ({ url, headers, signal }) => {
    const response = await fetchImpl(url, { headers, signal, cache: "no-store" });
    if (!response.ok) throw await refusal(response);
    if (!(response.headers.get("Content-Type") ?? "").startsWith("text/event-stream")) {
      await response.body?.cancel();
      throw new StreamUnsupported(`not an event stream: ${response.headers.get("Content-Type")}`);
    }
    const reader = response.body?.getReader?.();
    if (reader === undefined) throw new StreamUnsupported("fetch gives no readable body here");
    const decoder = new TextDecoder();
    return {
      async *[Symbol.asyncIterator]() {
        try {
          for (;;) {
            const { done, value } = await reader.read();
            if (done) break;
            yield decoder.decode(value, { stream: true });
          }
        } finally {
          reader.releaseLock();
        }
      },
    };
  };
}

/** A transport on XMLHttpRequest's progress events, for React Native (whose fetch has no streamed body). */
export function xhrTransport(): SseTransport {
  return ({ url, headers, signal }) =>
    new Promise((resolve, reject) => {
      const xhr = new XMLHttpRequest();
      const queue: string[] = [];
      let seen = 0;
      let finished = false;
      let failure: unknown = undefined;
      let wake: (() => void) | undefined;
      const poke = () => {
        wake?.();
        wake = undefined;
      };
      xhr.open("GET", url);
      for (const [name, value] of Object.entries(headers)) xhr.setRequestHeader(name, value);
      xhr.onreadystatechange = () => {
        if (xhr.readyState !== 2) return; // headers received
        if (xhr.status < 200 || xhr.status >= 300) {
          reject(new StreamRefused(xhr.status, undefined, xhr.getResponseHeader("Retry-After")));
          xhr.abort();
          return;
        }
        resolve({
          async *[Symbol.asyncIterator]() {
            for (;;) {
              while (queue.length > 0) yield queue.shift() as string;
              if (failure !== undefined) throw failure;
              if (finished) return;
              await new Promise<void>((woken) => (wake = woken));
            }
          },
        });
      };
      xhr.onprogress = () => {
        queue.push(xhr.responseText.slice(seen));
        seen = xhr.responseText.length;
        poke();
      };
      xhr.onload = () => {
        finished = true;
        poke();
      };
      xhr.onerror = () => {
        failure = new TypeError("the stream's connection failed");
        reject(failure);
        poke();
      };
      signal.addEventListener("abort", () => {
        xhr.abort();
        finished = true;
        poke();
      });
      xhr.send();
    });
}

/** Parses the text of an event stream (the WHATWG rules): `event`, `data` (lines joined), `id`,
 * comments skipped; `onRetry` gets a `retry:` field. */
export async function* parseEvents(chunks: AsyncIterable<string>, onRetry?: (ms: number) => void): AsyncGenerator<SseEvent> {
  let buffer = "";
  let event = "";
  let data: string[] = [];
  let id: string | undefined = undefined;
  for await (const chunk of chunks) {
    buffer += chunk;
    const lines = buffer.split(/\r\n|\r|\n/);
    buffer = lines.pop() ?? "";
    for (const line of lines) {
      if (line === "") {
        if (data.length > 0) yield { event: event || "message", id, data: data.join("\n") };
        event = "";
        data = [];
        id = undefined;
        continue;
      }
      if (line.startsWith(":")) continue;
      const colon = line.indexOf(":");
      const field = colon === -1 ? line : line.slice(0, colon);
      let value = colon === -1 ? "" : line.slice(colon + 1);
      if (value.startsWith(" ")) value = value.slice(1);
      if (field === "event") event = value;
      else if (field === "data") data.push(value);
      else if (field === "id" && !value.includes("\0")) id = value;
      else if (field === "retry" && /^\d+$/.test(value)) onRetry?.(Number(value));
    }
  }
}
