/**
 * An extension server's stdio messages: the SDK's `ReadBuffer`, in linear time (lines of
 * line_buffer.ts, each parsed and checked by the SDK's own `deserializeMessage`).
 *
 * @module
 */

import type { Buffer } from "node:buffer";
// @ts-types="@modelcontextprotocol/sdk/shared/stdio"
import { deserializeMessage } from "@modelcontextprotocol/sdk/shared/stdio.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { LineBuffer } from "./line_buffer.ts";

/**
 * The SDK's `ReadBuffer` in linear time: lines of {@link LineBuffer}, each parsed and
 * checked by the SDK's own `deserializeMessage`.
 *
 * @example
 * ```ts
 * import { Buffer } from "node:buffer";
 * import { JsonRpcLineBuffer } from "./json_rpc_lines.ts";
 * const buf = new JsonRpcLineBuffer();
 * buf.append(Buffer.from('{"jsonrpc":"2.0","method":"x"}\n'));
 * buf.readMessage(); // { jsonrpc: "2.0", method: "x" }
 * ```
 */
export class JsonRpcLineBuffer {
  #lines: LineBuffer;

  /** At most `maxBufferSize` unread bytes (default the SDK's 10 MiB). */
  constructor(opts: { maxBufferSize?: number } = {}) {
    this.#lines = new LineBuffer(opts);
  }

  /** Add input; throws (and drops what was unread) past the bound. */
  append(chunk: Buffer): void {
    this.#lines.append(chunk);
  }

  /** The next complete message, or null; throws for a line that is not one. */
  readMessage(): JSONRPCMessage | null {
    const line = this.#lines.readLine();
    return line === null ? null : deserializeMessage(line);
  }

  /** Drop unread input. */
  clear(): void {
    this.#lines.clear();
  }
}
