/**
 * Request ids in flight are unique per connection (MCP: an id is never reused within a
 * session). The SDK keys what it knows of a request by its id alone — the handler's abort
 * controller (what `notifications/cancelled` aborts), and over Streamable HTTP the stream
 * its response goes to — so a second request with the id of one still running took both
 * over: the first call could no longer be cancelled, its response went to the second
 * request's stream (or nowhere), and its own stream stayed open for ever. Such a request
 * is refused (`-32600`) and never reaches a handler: over HTTP before the transport sees
 * the body (a batch repeating an id included), anywhere before the SDK dispatches it.
 *
 * @module
 */

// @ts-types="@modelcontextprotocol/sdk/shared/transport"
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";

/** JSON-RPC ids. */
export type RequestId = string | number;

/** What a refused request is told. */
export const REUSED_ID_MESSAGE =
  "Invalid Request: this request id is in use by a request still in flight on this " +
  "connection; give every request its own id";

/**
 * The ids of the requests (messages with a `method` and an `id`) in a JSON-RPC body: one
 * message or a batch.
 *
 * @example
 * ```ts
 * import { requestIdsOf } from "./request_ids.ts";
 * requestIdsOf([{ jsonrpc: "2.0", id: 1, method: "ping" }, { jsonrpc: "2.0", method: "x" }]); // [1]
 * ```
 */
export function requestIdsOf(body: unknown): RequestId[] {
  const messages = Array.isArray(body) ? body : [body];
  const ids: RequestId[] = [];
  for (const m of messages) {
    if (typeof m !== "object" || m === null || typeof m.method !== "string") continue;
    const id: unknown = m.id;
    if (typeof id === "string" || typeof id === "number") ids.push(id);
  }
  return ids;
}

/**
 * Whether `body` repeats a request id, or names one `inFlight` says is in flight.
 *
 * @example
 * ```ts
 * import { reusesRequestId } from "./request_ids.ts";
 * const ping = (id: number) => ({ jsonrpc: "2.0", id, method: "ping" });
 * reusesRequestId([ping(1), ping(1)], () => false); // true
 * reusesRequestId(ping(2), (id) => id === 2); // true
 * reusesRequestId(ping(3), () => false); // false
 * ```
 */
export function reusesRequestId(body: unknown, inFlight: (id: RequestId) => boolean): boolean {
  const seen = new Set<RequestId>();
  for (const id of requestIdsOf(body)) {
    if (seen.has(id) || inFlight(id)) return true;
    seen.add(id);
  }
  return false;
}

/**
 * The ids a Streamable HTTP server transport still owes a response (the SDK's map from
 * request id to response stream, which also keeps a cancelled request's id), as a
 * lookup; one that is never in flight where that SDK detail is missing.
 *
 * @example
 * ```ts
 * import { transportOwes } from "./request_ids.ts";
 * transportOwes({})(1); // false: nothing known
 * ```
 */
export function transportOwes(transport: object): (id: RequestId) => boolean {
  const inner = (transport as { _webStandardTransport?: unknown })._webStandardTransport;
  const map = (inner as { _requestToStreamMapping?: unknown } | undefined)
    ?._requestToStreamMapping;
  return map instanceof Map ? (id) => map.has(id) : () => false;
}

/**
 * Guard `transport`'s incoming requests (see the module documentation): a request is in
 * flight from its arrival until a response with its id is sent (the SDK sends none for a
 * cancelled one: its `notifications/cancelled` ends it). Returns the check for each
 * incoming message — false when it is a request reusing an id in flight, which has then
 * been answered `-32600` and must not be handed on. Wraps `transport.send`; call once the
 * SDK is connected to it.
 *
 * @example
 * ```ts
 * // @ts-types="@modelcontextprotocol/sdk/inMemory"
 * import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
 * import { guardRequestIds } from "./request_ids.ts";
 * const [server] = InMemoryTransport.createLinkedPair();
 * const admit = guardRequestIds(server);
 * admit({ jsonrpc: "2.0", id: 1, method: "ping" }); // true: now in flight
 * admit({ jsonrpc: "2.0", id: 1, method: "ping" }); // false: answered -32600
 * ```
 */
export function guardRequestIds(transport: Transport): (message: JSONRPCMessage) => boolean {
  const inFlight = new Set<RequestId>();
  const send = transport.send.bind(transport);
  transport.send = (message, options) => {
    if (("result" in message || "error" in message) && "id" in message) {
      const id: unknown = message.id;
      if (typeof id === "string" || typeof id === "number") inFlight.delete(id);
    }
    return send(message, options);
  };
  return (message) => {
    if (!("method" in message)) return true;
    if (!("id" in message)) {
      if (message.method === "notifications/cancelled") {
        const id: unknown = message.params?.requestId;
        if (typeof id === "string" || typeof id === "number") inFlight.delete(id);
      }
      return true;
    }
    if (!inFlight.has(message.id)) {
      inFlight.add(message.id);
      return true;
    }
    // The raw send: this answer is not the response of the request in flight.
    const error = { code: -32600, message: REUSED_ID_MESSAGE };
    send({ jsonrpc: "2.0", id: message.id, error }).catch(() => {});
    return false;
  };
}
