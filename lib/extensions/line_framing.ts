/**
 * Newline-delimited JSON-RPC framing shared by toolhost's stdio transports (the server
 * side of `serve`, and the client side of extension servers): the SDK's `ReadBuffer` does
 * the splitting and message validation; this decides what a bad line or an oversized
 * buffer means, once for both.
 *
 * @module
 */

import type { Buffer } from "node:buffer";
import type { Readable, Writable } from "node:stream";
// @ts-types="@modelcontextprotocol/sdk/types"
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";

/** Where framed messages and framing errors go. */
export interface FrameSink {
  /** A complete, valid message. */
  onmessage?: (message: JSONRPCMessage) => void;
  /** A line that is not a valid message, or the buffer bound was exceeded. */
  onerror?: (error: Error) => void;
}

/**
 * What splits and validates lines: the SDK's `ReadBuffer`, or one of the same behaviour
 * (`serve`'s, lib/mcp/message_buffer.ts).
 */
export interface MessageBuffer {
  /** Add input; throws when more would be unread than the buffer allows. */
  append(chunk: Buffer): void;
  /** The next complete message; null when no line is complete; throws for a bad line. */
  readMessage(): JSONRPCMessage | null;
}

/**
 * Append `chunk` and deliver every complete message. A bad line is reported and skipped
 * (the next may be fine); more unread input than the buffer allows is reported and
 * returns false: nothing sane can follow, so the caller closes the connection.
 *
 * @example
 * ```ts
 * import { Buffer } from "node:buffer";
 * import { ReadBuffer } from "@modelcontextprotocol/sdk/shared/stdio.js";
 * import { feedLines } from "./line_framing.ts";
 * const buf = new ReadBuffer();
 * feedLines(buf, Buffer.from('{"jsonrpc":"2.0","method":"x"}\n'), {
 *   onmessage: (m) => console.log(m),
 * }); // true
 * ```
 */
export function feedLines(buffer: MessageBuffer, chunk: Buffer, sink: FrameSink): boolean {
  try {
    buffer.append(chunk);
  } catch (e) {
    sink.onerror?.(e as Error);
    return false;
  }
  for (;;) {
    let message: JSONRPCMessage | null;
    try {
      message = buffer.readMessage();
    } catch (e) {
      sink.onerror?.(e as Error);
      continue;
    }
    if (message === null) return true;
    sink.onmessage?.(message);
  }
}

const encoder = new TextEncoder();

/**
 * One message as its JSON line: the SDK's `serializeMessage`, which is exactly this
 * (tests/mcp/line_framing_test.ts compares them); written out so that framing does not
 * load the SDK's schemas (`serve` answers its first requests before loading them).
 *
 * @example
 * ```ts
 * import { serializeMessage } from "./line_framing.ts";
 * serializeMessage({ jsonrpc: "2.0", method: "x" }); // '{"jsonrpc":"2.0","method":"x"}\n'
 * ```
 */
export function serializeMessage(message: JSONRPCMessage): string {
  return JSON.stringify(message) + "\n";
}

/**
 * One message as the UTF-8 bytes of its JSON line. Streams are handed bytes, not strings:
 * Deno's sockets and pipes re-encode a string on a slow path (see {@link utf8Bytes}).
 *
 * @example
 * ```ts
 * import { frameBytes } from "./line_framing.ts";
 * frameBytes({ jsonrpc: "2.0", method: "x" }); // Uint8Array of '{"jsonrpc":"2.0","method":"x"}\n'
 * ```
 */
export function frameBytes(
  message: JSONRPCMessage,
  serialize: (message: JSONRPCMessage) => string = serializeMessage,
): Uint8Array {
  return utf8Bytes(serialize(message));
}

/**
 * `text` as UTF-8 bytes (a lone surrogate becomes U+FFFD): `TextEncoder.encode`. Under
 * Deno 2.9 it is cheaper than counting with `Buffer.byteLength` and `encodeInto` a
 * zeroed buffer of that size, which this was before: 13k fewer instructions per 4 KiB
 * `read` answer in `serve` (callgrind, 1,000 calls).
 *
 * @example
 * ```ts
 * import { utf8Bytes } from "./line_framing.ts";
 * utf8Bytes("é\n"); // Uint8Array [195, 169, 10]
 * ```
 */
export function utf8Bytes(text: string): Uint8Array {
  return encoder.encode(text);
}

/**
 * Write one frame to `output`: resolves at once when the stream took it, else once it
 * has drained (the stdio transports' back-pressure).
 *
 * @example
 * ```ts
 * import { PassThrough } from "node:stream";
 * import { writeOrDrain } from "./line_framing.ts";
 * await writeOrDrain(new PassThrough(), new TextEncoder().encode("{}\n"));
 * ```
 */
export function writeOrDrain(output: Writable, bytes: Uint8Array): Promise<void> {
  if (output.write(bytes)) return Promise.resolve();
  return new Promise((resolve) => output.once("drain", resolve));
}

/**
 * Stop a transport's reading of `input`: remove its two listeners, and pause the stream
 * when no other reader is left on it (stdin is shared with the process).
 *
 * @example
 * ```ts
 * import { PassThrough } from "node:stream";
 * import { stopReading } from "./line_framing.ts";
 * const input = new PassThrough();
 * const ondata = () => {};
 * const onerror = () => {};
 * input.on("data", ondata).on("error", onerror);
 * stopReading(input, ondata, onerror);
 * ```
 */
export function stopReading(
  input: Readable,
  ondata: (chunk: Buffer) => void,
  onerror: (e: Error) => void,
): void {
  input.off("data", ondata);
  input.off("error", onerror);
  if (input.listenerCount("data") === 0) input.pause();
}
