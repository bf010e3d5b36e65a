/**
 * What `serve` on stdio does with a line the SDK's message schema refuses. The SDK's own
 * stdio transport reports such a line and drops it, so a client that sent a request the
 * schema does not take (a member beyond `jsonrpc`, `id`, `method` and `params`, a missing
 * `"jsonrpc": "2.0"`, a fractional id) waits for ever for an answer, and a JSON-RPC batch
 * (which protocol 2024-11-05 and 2025-03-26 clients may send, and which the SDK's
 * Streamable HTTP transport takes) is never answered at all. Over HTTP the same messages
 * get an error or their answers. So here:
 *
 * - a request whose `id` can be read (a string or a number) gets JSON-RPC's `-32600
 *   Invalid Request` error with that id, ending the client's wait;
 * - a non-empty batch is taken as its messages, one by one, in order (each answered on
 *   its own line, as the SDK's HTTP transport answers each as its own event);
 * - anything else (not JSON, a notification, a response, an empty batch) stays reported
 *   and dropped: an answer without an id could not end any wait.
 *
 * @module
 */

// @ts-types="@modelcontextprotocol/sdk/types"
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";

/** JSON-RPC's Invalid Request code. */
export const INVALID_REQUEST = -32600;

/** What to do with a refused line: answer it, or take its batch members as lines. */
export type StrayLine =
  | { kind: "answer"; message: JSONRPCMessage }
  | { kind: "batch"; lines: string[] }
  | { kind: "drop" };

/**
 * Classify a line the SDK's `deserializeMessage` threw on (see the module documentation).
 * `inBatch` is true for a batch's members: a batch inside a batch is not unpacked.
 *
 * @example
 * ```ts
 * import { strayLine } from "./stray_lines.ts";
 * strayLine('{"jsonrpc":"2.0","id":7,"method":"ping","x":1}');
 * // { kind: "answer", message: { jsonrpc: "2.0", id: 7, error: { code: -32600, ... } } }
 * strayLine('[{"jsonrpc":"2.0","id":1,"method":"ping"}]');
 * // { kind: "batch", lines: ['{"jsonrpc":"2.0","id":1,"method":"ping"}'] }
 * strayLine("not json"); // { kind: "drop" }
 * ```
 */
export function strayLine(line: string, inBatch = false): StrayLine {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return { kind: "drop" };
  }
  if (Array.isArray(value)) {
    if (inBatch || value.length === 0) return { kind: "drop" };
    return { kind: "batch", lines: value.map((m) => JSON.stringify(m) ?? "null") };
  }
  if (typeof value !== "object" || value === null) return { kind: "drop" };
  const m = value as Record<string, unknown>;
  const id = m.id;
  const readableId = typeof id === "string" || (typeof id === "number" && Number.isFinite(id));
  if (!readableId || typeof m.method !== "string") return { kind: "drop" };
  return {
    kind: "answer",
    message: {
      jsonrpc: "2.0",
      id: id as string | number,
      error: {
        code: INVALID_REQUEST,
        message: "Invalid Request: not a request the MCP schema accepts (members " +
          '"jsonrpc": "2.0", "id", "method" and an optional "params" object, no others)',
      },
    } as JSONRPCMessage,
  };
}
