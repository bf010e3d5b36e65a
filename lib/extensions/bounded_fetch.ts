/**
 * The `fetch` a remote extension's transport is given: every response body it reads is
 * bounded. The SDK reads a JSON answer whole (`response.json()`), an error's text whole,
 * and an event stream through a parser that buffers the current line and event until a
 * blank line; a server that sends an endless body, line or event would grow this
 * process's memory without bound. Here an event stream may carry at most `maxBytes`
 * between two blank lines (one event), any other body at most `maxBytes` in all; beyond
 * that the body errors, which ends the connection (remote_transport.ts).
 *
 * @module
 */

import type { Protector } from "../redact/types.ts";
import { heldBody } from "./held_body.ts";

/**
 * A response body, or an event of an event stream, is larger than the bound.
 *
 * @example
 * ```ts
 * import { BodyTooLargeError } from "./bounded_fetch.ts";
 * new BodyTooLargeError(16).message; // "the server's answer is larger than 16 bytes"
 * ```
 */
export class BodyTooLargeError extends Error {
  /** Create the error (value-free). */
  constructor(maxBytes: number) {
    super(`the server's answer is larger than ${maxBytes} bytes`);
    this.name = "BodyTooLargeError";
  }
}

/** Statuses whose responses carry no body (and cannot be rebuilt with one). */
const NO_BODY = new Set([101, 103, 204, 205, 304]);
const LF = 10;
const CR = 13;

/**
 * A counter of the bytes since the last event boundary (a blank line; LF, CR and CRLF
 * end lines) of an event stream, or of all bytes when `events` is false. Returns false
 * once more than `maxBytes` were counted.
 */
function byteCounter(maxBytes: number, events: boolean): (chunk: Uint8Array) => boolean {
  let count = 0;
  let lineLength = 0;
  let afterCR = false;
  return (chunk) => {
    if (!events) return (count += chunk.byteLength) <= maxBytes;
    for (let i = 0; i < chunk.byteLength; i++) {
      const b = chunk[i];
      count++;
      if (b === LF && afterCR) {
        afterCR = false; // the LF of a CRLF: the same line end
        continue;
      }
      afterCR = b === CR;
      if (b === LF || b === CR) {
        if (lineLength === 0) count = 0; // a blank line: the event is complete
        lineLength = 0;
      } else lineLength++;
      if (count > maxBytes) return false;
    }
    return count <= maxBytes;
  };
}

/**
 * `body` passed through, erroring with {@link BodyTooLargeError} past the bound.
 *
 * @example
 * ```ts
 * import { boundedBody } from "./bounded_fetch.ts";
 * const body = new Response("data: x\n\n".repeat(4)).body!;
 * await new Response(boundedBody(body, 16, true)).text(); // 4 events of 9 bytes: fine
 * ```
 */
export function boundedBody(
  body: ReadableStream<Uint8Array>,
  maxBytes: number,
  events: boolean,
): ReadableStream<Uint8Array> {
  const within = byteCounter(maxBytes, events);
  return body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        if (within(chunk)) controller.enqueue(chunk);
        else controller.error(new BodyTooLargeError(maxBytes));
      },
    }),
  );
}

/**
 * A `fetch` whose response bodies are bounded (see the module doc), and, with `protect`,
 * whose messages holding a protected value outside their strings are held (held_body.ts).
 *
 * @example
 * ```ts
 * import { boundedFetch } from "./bounded_fetch.ts";
 * const f = boundedFetch(16 * 1024 * 1024);
 * // const r = await f("https://mcp.example.com/mcp", { method: "POST" });
 * ```
 */
export function boundedFetch(
  maxBytes: number,
  base: typeof fetch = fetch,
  protect?: () => Protector | undefined,
): (input: string | URL | Request, init?: RequestInit) => Promise<Response> {
  return async (input, init) => {
    const response = await base(input, init);
    if (response.body === null || NO_BODY.has(response.status)) return response;
    const type = response.headers.get("content-type") ?? "";
    const events = type.split(";")[0].trim().toLowerCase() === "text/event-stream";
    const bounded = boundedBody(response.body, maxBytes, events);
    // Held after the bound: what is kept to check is one JSON body or one event.
    const p = protect?.();
    const body = p?.active ? heldBody(bounded, events, p) : bounded;
    return new Response(body, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}
