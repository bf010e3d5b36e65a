/**
 * An extension server's stdio messages: the SDK's `ReadBuffer`, in linear time (lines of
 * line_buffer.ts, each parsed and checked by the SDK's own `deserializeMessage`).
 *
 * Parsing rewrites what is outside JSON strings — a number with more digits than a double
 * holds is rounded, so a protected value inside one (`1<value>5`, or its digits around
 * a point the parse drops) comes out as most of itself, where no redaction after the
 * parse can find it. So a line holding a value outside its strings is checked before the
 * parse (`heldBeforeParse`) and delivered held: a response's result
 * becomes an error result that says why, an error response loses its message, a request
 * or notification its params.
 *
 * @module
 */

import type { Buffer } from "node:buffer";
// @ts-types="@modelcontextprotocol/sdk/shared/stdio"
import { deserializeMessage } from "@modelcontextprotocol/sdk/shared/stdio.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { heldBeforeParse } from "../redact/json_source.ts";
import type { Protector } from "../redact/types.ts";
import { LineBuffer } from "./line_buffer.ts";

/**
 * The text of a result or error an extension server sent with a protected value outside
 * a JSON string.
 *
 * @example
 * ```ts
 * import { HELD_EXTENSION_MESSAGE } from "./json_rpc_lines.ts";
 * HELD_EXTENSION_MESSAGE.startsWith("The extension's answer was withheld"); // true
 * ```
 */
export const HELD_EXTENSION_MESSAGE = "The extension's answer was withheld: it held a " +
  "protected value outside a JSON string (a number, say), where it cannot be redacted.";

/** Options of {@link JsonRpcLineBuffer}. */
export interface JsonRpcLineOptions {
  /** Most unread bytes. Default the SDK's 10 MiB. */
  maxBufferSize?: number;
  /** The protected values now (looked up at every line). Default none. */
  protect?: () => Protector | undefined;
}

/**
 * The SDK's `ReadBuffer` in linear time: lines of {@link LineBuffer}, each parsed and
 * checked by the SDK's own `deserializeMessage`, held when a protected value sits outside
 * its strings (see the module documentation).
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
  readonly #protect?: () => Protector | undefined;

  /** At most `maxBufferSize` unread bytes (default the SDK's 10 MiB). */
  constructor(opts: JsonRpcLineOptions = {}) {
    this.#lines = new LineBuffer(opts);
    this.#protect = opts.protect;
  }

  /** Add input; throws (and drops what was unread) past the bound. */
  append(chunk: Buffer): void {
    this.#lines.append(chunk);
  }

  /** The next complete message, or null; throws for a line that is not one. */
  readMessage(): JSONRPCMessage | null {
    const line = this.#lines.readLine();
    if (line === null) return null;
    const message = deserializeMessage(line);
    const p = this.#protect?.();
    if (p !== undefined && heldBeforeParse(line, p)) return heldMessage(message);
    return message;
  }

  /** Drop unread input. */
  clear(): void {
    this.#lines.clear();
  }
}

/**
 * `m` held: everything but its envelope (version, id, method) replaced or dropped — a
 * result becomes an error result saying why, an error loses its message and data, a
 * request or notification its params.
 *
 * @example
 * ```ts
 * import { heldMessage } from "./json_rpc_lines.ts";
 * heldMessage({ jsonrpc: "2.0", method: "notifications/progress", params: { progress: 1 } });
 * // { jsonrpc: "2.0", method: "notifications/progress" }
 * ```
 */
export function heldMessage(m: JSONRPCMessage): JSONRPCMessage {
  if ("result" in m) {
    const content = [{ type: "text" as const, text: HELD_EXTENSION_MESSAGE }];
    return { jsonrpc: m.jsonrpc, id: m.id, result: { content, isError: true } };
  }
  if ("error" in m) {
    return {
      jsonrpc: m.jsonrpc,
      id: m.id,
      error: { code: -32603, message: HELD_EXTENSION_MESSAGE },
    };
  }
  if ("id" in m) return { jsonrpc: m.jsonrpc, id: m.id, method: m.method };
  return { jsonrpc: m.jsonrpc, method: m.method };
}
