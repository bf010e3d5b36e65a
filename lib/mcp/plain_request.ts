/**
 * Incoming JSON-RPC requests of the plain shape every MCP client sends, checked by hand
 * instead of by the SDK's zod schemas, with the same outcome.
 *
 * Per `tools/call`, the SDK parses the request with zod three times: the message line
 * against `JSONRPCMessageSchema` (its `ReadBuffer`), again with `isJSONRPCRequest` when
 * the message is sorted, and against `CallToolRequestSchema` before the handler runs —
 * about a twentieth of `serve`'s CPU per 4 KiB `read`. Here:
 * - {@link parseMessageLine} takes a line as `deserializeMessage` does; a request of the
 *   plain shape (below) becomes the object zod would have made (same keys in the same
 *   order, same prototypes, same values) and the latest is remembered as checked; anything else —
 *   notifications, responses, `_meta`, odd ids, invalid input — goes to the SDK's parse as
 *   before, with its errors;
 * - {@link isPlainRequest} says a message came from that fast path (request_route.ts then
 *   skips `isJSONRPCRequest`, which it would pass);
 * - {@link plainCallRequest} is what `CallToolRequestSchema.parse` returns for a plain
 *   `tools/call` (a fresh request with `params: { name, arguments }`, `arguments` a
 *   copy, as zod's record makes it), or undefined to let zod decide.
 *
 * The plain shape (plain_shape.ts): an object with exactly the keys `jsonrpc` ("2.0"), `id`
 * (a string or a safe integer), `method` (a string) and optionally `params` (a plain object
 * with no own `_meta` or `__proto__` key). tests/mcp/plain_request_test.ts compares both paths on a
 * corpus of valid, odd and invalid lines.
 *
 * @module
 */

// @ts-types="@modelcontextprotocol/sdk/shared/stdio"
import { deserializeMessage } from "@modelcontextprotocol/sdk/shared/stdio.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import type { CallToolRequest, JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { hasOwn, isRecord, plainRequestOf } from "./plain_shape.ts";

/**
 * The latest message the fast path made. The route asks about a message right after its
 * line was parsed (stdio_front.ts parses and delivers in one step), so one slot answers it;
 * an older message is then simply not known as checked and takes the SDK's check. A
 * `WeakSet` entry per request cost more (its add, and its ephemeron at every collection).
 */
let latest: object | undefined;

/**
 * One JSON-RPC message from one line (without its newline), exactly as the SDK's
 * `deserializeMessage` makes it; throws what it throws.
 *
 * @example
 * ```ts
 * import { isPlainRequest, parseMessageLine } from "./plain_request.ts";
 * const m = parseMessageLine('{"jsonrpc":"2.0","id":1,"method":"ping"}');
 * isPlainRequest(m); // true
 * ```
 */
export function parseMessageLine(line: string): JSONRPCMessage {
  const value: unknown = JSON.parse(line);
  const plain = plainRequestOf(value);
  if (plain === undefined) return deserializeMessage(line);
  latest = plain;
  return plain as JSONRPCMessage;
}

/**
 * Whether `message` is the latest message that came out of {@link parseMessageLine}'s fast
 * path (so it is a valid JSON-RPC request); false for anything else, which the caller
 * then checks itself.
 *
 * @example
 * ```ts
 * import { isPlainRequest } from "./plain_request.ts";
 * isPlainRequest({ jsonrpc: "2.0", id: 1, method: "ping" }); // false: not parsed here
 * ```
 */
export function isPlainRequest(message: object): boolean {
  return message === latest;
}

/**
 * `CallToolRequestSchema.parse(request)` for a plain `tools/call` request; undefined when
 * zod must decide (then call it as before).
 *
 * @example
 * ```ts
 * import { plainCallRequest } from "./plain_request.ts";
 * const req = { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "t" } };
 * plainCallRequest(req)?.params.name; // "t"
 * ```
 */
export function plainCallRequest(request: unknown): CallToolRequest | undefined {
  if (!isRecord(request) || request.method !== "tools/call") return undefined;
  const params = request.params;
  if (!isRecord(params) || Object.getPrototypeOf(params) !== Object.prototype) return undefined;
  if (hasOwn(params, "_meta") || hasOwn(params, "task") || hasOwn(params, "__proto__")) {
    return undefined;
  }
  if (typeof params.name !== "string") return undefined;
  if (!hasOwn(params, "arguments")) {
    return { method: "tools/call", params: { name: params.name } };
  }
  const args = params.arguments;
  if (!isRecord(args) || Object.getPrototypeOf(args) !== Object.prototype) return undefined;
  const copy: Record<string, unknown> = {};
  for (const key of Reflect.ownKeys(args)) {
    if (typeof key !== "string" || key === "__proto__") return undefined;
    const d = Object.getOwnPropertyDescriptor(args, key);
    if (!d || !d.enumerable || !("value" in d)) return undefined;
    copy[key] = d.value;
  }
  return { method: "tools/call", params: { name: params.name, arguments: copy } };
}
