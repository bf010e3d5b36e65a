/**
 * `serve`'s framing of incoming lines: the SDK's `ReadBuffer` — the same bound, error and
 * line splitting (a trailing `\r` dropped) — but each line parsed by
 * {@link parseMessageLine}, whose plain requests skip the SDK's zod parses
 * (plain_request.ts).
 *
 * @module
 */

import { Buffer } from "node:buffer";
// @ts-types="@modelcontextprotocol/sdk/shared/stdio"
import { STDIO_DEFAULT_MAX_BUFFER_SIZE } from "@modelcontextprotocol/sdk/shared/stdio.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import type { MessageBuffer } from "../extensions/line_framing.ts";
import { parseMessageLine } from "./plain_request.ts";

/**
 * Buffers a byte stream into JSON-RPC messages, one a line.
 *
 * @example
 * ```ts
 * import { Buffer } from "node:buffer";
 * import { MessageLineBuffer } from "./message_buffer.ts";
 * const buf = new MessageLineBuffer();
 * buf.append(Buffer.from('{"jsonrpc":"2.0","id":1,"method":"ping"}\n'));
 * buf.readMessage(); // { jsonrpc: "2.0", id: 1, method: "ping" }
 * ```
 */
export class MessageLineBuffer implements MessageBuffer {
  #max: number;
  #buffer?: Buffer;

  /** At most `maxBufferSize` unread bytes (default the SDK's 10 MiB). */
  constructor(opts: { maxBufferSize?: number } = {}) {
    this.#max = opts.maxBufferSize ?? STDIO_DEFAULT_MAX_BUFFER_SIZE;
  }

  /** Add input; throws (and drops what was unread) past the bound, as `ReadBuffer` does. */
  append(chunk: Buffer): void {
    const size = (this.#buffer?.length ?? 0) + chunk.length;
    if (size > this.#max) {
      this.clear();
      throw new Error(`ReadBuffer exceeded maximum size of ${this.#max} bytes`);
    }
    this.#buffer = this.#buffer ? Buffer.concat([this.#buffer, chunk]) : chunk;
  }

  /** The next complete message, or null; throws for a line that is not one. */
  readMessage(): JSONRPCMessage | null {
    const buffer = this.#buffer;
    if (!buffer) return null;
    const index = buffer.indexOf(10);
    if (index === -1) return null;
    let line = buffer.toString("utf8", 0, index);
    if (line.endsWith("\r")) line = line.slice(0, -1);
    this.#buffer = index + 1 === buffer.length ? undefined : buffer.subarray(index + 1);
    return parseMessageLine(line);
  }

  /** Drop unread input. */
  clear(): void {
    this.#buffer = undefined;
  }
}
