/**
 * A shorter route for incoming requests into the SDK's protocol layer. The SDK sorts every
 * incoming message by trying it against its strict JSON-RPC schemas in turn — result
 * response, error response, request, notification — and a failed zod parse builds its
 * issue list: two failures (about 5–10 µs under Deno) before every request is
 * recognised. A message with its own `method` key can match neither response schema
 * (both are strict and have no `method`), so for it the SDK's answer is decided by the
 * request and notification schemas alone. This route asks exactly those, in the SDK's
 * order, and hands the message to the same SDK method the SDK would; anything else goes
 * the SDK's own way. A request `serve`'s stdio framing already checked by hand
 * (plain_request.ts: one the request schema accepts) skips the request schema too.
 *
 * @module
 */

// @ts-types="@modelcontextprotocol/sdk/types"
import {
  isJSONRPCNotification,
  isJSONRPCRequest,
  type JSONRPCMessage,
} from "@modelcontextprotocol/sdk/types.js";
import { isPlainRequest } from "./plain_request.ts";

/** The SDK protocol methods a routed message is handed to (SDK 1.x internals). */
interface ProtocolInternals {
  _onrequest(message: unknown, extra: unknown): void;
  _onnotification(message: unknown): void;
}

/** Route `message`; false when it must take the SDK's own path. */
export type RequestRoute = (message: JSONRPCMessage, extra: unknown) => boolean;

/**
 * The route into `protocol` (an SDK `Server` or `Protocol`), or undefined when the SDK
 * does not have the methods it hands messages to (another SDK version: every message then
 * takes the SDK's own path).
 *
 * @example
 * ```ts
 * import { Server } from "@modelcontextprotocol/sdk/server";
 * import { requestRoute } from "./request_route.ts";
 * const server = new Server({ name: "x", version: "1" }, { capabilities: {} });
 * const route = requestRoute(server);
 * console.log(route !== undefined); // true with the pinned SDK
 * ```
 */
export function requestRoute(protocol: object): RequestRoute | undefined {
  const p = protocol as Partial<ProtocolInternals>;
  if (typeof p._onrequest !== "function" || typeof p._onnotification !== "function") {
    return undefined;
  }
  const target = p as ProtocolInternals;
  return (message, extra) => {
    if (typeof message !== "object" || message === null || !Object.hasOwn(message, "method")) {
      return false;
    }
    if (isPlainRequest(message) || isJSONRPCRequest(message)) {
      target._onrequest(message, extra);
      return true;
    }
    if (isJSONRPCNotification(message)) {
      target._onnotification(message);
      return true;
    }
    return false; // the SDK reports it as an unknown message type
  };
}
