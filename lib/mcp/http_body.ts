/**
 * Reading a POST body of `serve --http`: bounded in bytes and in time. A client that sends
 * its body slowly (a byte a second, or a chunked body that never ends) would otherwise hold
 * the request, its connection and its buffers for as long as it likes; past the deadline
 * the request is answered 408 and its connection closed.
 *
 * @module
 */

import type { IncomingMessage } from "node:http";
import { concatBytes } from "../bytes/concat_bytes.ts";

/** Largest POST body read, bytes. */
export const MAX_BODY_BYTES = 4 * 1024 * 1024;

/** How long a whole POST body may take to arrive, ms (a 4 MiB body at ~140 KB/s). */
export const BODY_DEADLINE_MS = 30_000;

/** A body read: the parsed JSON, or the HTTP status and JSON-RPC error to answer. */
export type JsonRead =
  | { ok: true; value: unknown }
  | { ok: false; status: 400 | 408 | 413; code: number; message: string };

/** Options of {@linkcode readJsonBody}. */
export interface ReadBodyOptions {
  /** Most bytes read. Default {@linkcode MAX_BODY_BYTES}. */
  maxBytes?: number;
  /** Most time the whole body may take, ms. Default {@linkcode BODY_DEADLINE_MS}. */
  deadlineMs?: number;
}

/**
 * Read `req`'s body as one JSON value. Past `maxBytes` it answers 413, past `deadlineMs`
 * 408 (the request is destroyed: nothing more is read from its connection); a body that is
 * not JSON is 400 (`-32700`).
 *
 * @example
 * ```ts
 * import { Readable } from "node:stream";
 * import type { IncomingMessage } from "node:http";
 * import { readJsonBody } from "./http_body.ts";
 * const req = Readable.from([new TextEncoder().encode('{"a":1}')]) as unknown as IncomingMessage;
 * console.log(await readJsonBody(req)); // { ok: true, value: { a: 1 } }
 * ```
 */
export async function readJsonBody(
  req: IncomingMessage,
  options: ReadBodyOptions = {},
): Promise<JsonRead> {
  const maxBytes = options.maxBytes ?? MAX_BODY_BYTES;
  let late = false;
  const timer = setTimeout(() => {
    late = true;
    req.destroy();
  }, options.deadlineMs ?? BODY_DEADLINE_MS);
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for await (const chunk of req) {
      size += (chunk as Uint8Array).byteLength;
      if (size > maxBytes) {
        return { ok: false, status: 413, code: -32600, message: "Request body too large" };
      }
      chunks.push(chunk as Uint8Array);
    }
  } catch (e) {
    if (!late) throw e;
  } finally {
    clearTimeout(timer);
  }
  if (late) {
    return {
      ok: false,
      status: 408,
      code: -32600,
      message: `Request body not received within ${options.deadlineMs ?? BODY_DEADLINE_MS} ms`,
    };
  }
  const text = new TextDecoder().decode(concatBytes(chunks, { shareSingle: true }));
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false, status: 400, code: -32700, message: "Parse error: the body is not JSON" };
  }
}
