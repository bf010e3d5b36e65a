/**
 * `serve`'s framing of incoming lines: the SDK's `ReadBuffer` — the same bound, error and
 * line splitting (line_buffer.ts) — but each line parsed by {@link parseMessageLine},
 * whose plain requests skip the SDK's zod parses (plain_request.ts).
 *
 * @module
 */

import type { Buffer } from "node:buffer";
// @ts-types="@modelcontextprotocol/sdk/types"
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import type { MessageBuffer } from "../extensions/line_framing.ts";
import { LineBuffer } from "./line_buffer.ts";
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
  #lines: LineBuffer;

  /** At most `maxBufferSize` unread bytes (default the SDK's 10 MiB). */
  constructor(opts: { maxBufferSize?: number } = {}) {
    this.#lines = new LineBuffer(opts);
  }

  /** Add input; throws (and drops what was unread) past the bound, as `ReadBuffer` does. */
  append(chunk: Buffer): void {
    this.#lines.append(chunk);
  }

  /** The next complete message, or null; throws for a line that is not one. */
  readMessage(): JSONRPCMessage | null {
    const line = this.#lines.readLine();
    return line === null ? null : parseMessageLine(line);
  }

  /** Drop unread input. */
  clear(): void {
    this.#lines.clear();
  }
}
