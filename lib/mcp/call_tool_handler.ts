/**
 * The `tools/call` handler's registration, without the SDK `Server`'s per-call wrapper.
 *
 * What the SDK's `Server.setRequestHandler` adds for `tools/call`, and what happens to it:
 * - it parses the request again with `CallToolRequestSchema`; the protocol layer has just
 *   parsed it with that same schema (an invalid request is answered with an error before
 *   any handler runs), so the second parse is dropped;
 * - it parses every result with zod against `CallToolResultSchema` (against
 *   `CreateTaskResultSchema` when the request asked for a task) and answers
 *   `InvalidParams` when that fails. This check stays: a result in the plain shape
 *   toolhost builds — text blocks `{ type, text }`, a JSON-object `structuredContent`, a
 *   boolean `isError`, nothing else — is checked by hand ({@linkcode plainToolResult}),
 *   exactly what zod accepts for that shape and with the same output; anything else goes
 *   through the SDK's schema as before, with the same error.
 *
 * Parsing each `read` result with zod was about a tenth of `serve`'s CPU per call. The
 * protocol layer's own parse of the request with `CallToolRequestSchema` is done by hand
 * for a plain request (plain_request.ts, the same output), by zod for any other.
 *
 * @module
 */

import type { Server } from "@modelcontextprotocol/sdk/server";
// @ts-types="@modelcontextprotocol/sdk/shared/protocol"
import { Protocol, type RequestHandlerExtra } from "@modelcontextprotocol/sdk/shared/protocol.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import {
  type CallToolRequest,
  CallToolRequestSchema,
  type CallToolResult,
  CallToolResultSchema,
  CreateTaskResultSchema,
  ErrorCode,
  McpError,
  type ServerNotification,
  type ServerRequest,
} from "@modelcontextprotocol/sdk/types.js";
import { plainCallRequest } from "./plain_request.ts";

/** A `tools/call` handler: the parsed request in, the result out. */
export type CallToolHandler = (
  request: CallToolRequest,
  extra: RequestHandlerExtra<ServerRequest, ServerNotification>,
) => Promise<CallToolResult>;

type BaseSetHandler = (
  this: Server,
  schema: typeof CallToolRequestSchema,
  handler: (
    request: CallToolRequest,
    extra: RequestHandlerExtra<ServerRequest, ServerNotification>,
  ) => Promise<unknown>,
) => void;

/**
 * Register `handler` for `tools/call` on `server` through the protocol layer (which parses
 * the request with `CallToolRequestSchema` and checks the server's `tools` capability),
 * checking each result as described in the module documentation.
 *
 * @example
 * ```ts
 * import { Server } from "@modelcontextprotocol/sdk/server";
 * import { setCallToolHandler } from "./call_tool_handler.ts";
 * const server = new Server({ name: "x", version: "1" }, { capabilities: { tools: {} } });
 * setCallToolHandler(server, () => Promise.resolve({ content: [{ type: "text", text: "hi" }] }));
 * ```
 */
export function setCallToolHandler(server: Server, handler: CallToolHandler): void {
  const base = Protocol.prototype.setRequestHandler as unknown as BaseSetHandler;
  const run = async (request: CallToolRequest, extra: HandlerExtra) => {
    const result: unknown = await handler(request, extra);
    return checkedCallResult(result, Boolean(request.params.task));
  };
  base.call(server, CallToolRequestSchema, run);
  // The protocol layer's wrapper parses with zod; a plain request gets the same parse by
  // hand (plain_request.ts), anything else still the wrapper's.
  const handlers = (server as unknown as { _requestHandlers?: unknown })._requestHandlers;
  if (!(handlers instanceof Map)) return; // another SDK version: its wrapper stays
  const wrapped: unknown = handlers.get("tools/call");
  if (typeof wrapped !== "function") return;
  handlers.set("tools/call", (request: unknown, extra: HandlerExtra) => {
    const plain = plainCallRequest(request);
    return plain === undefined ? wrapped(request, extra) : run(plain, extra);
  });
}

type HandlerExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/**
 * The result as the SDK's `tools/call` wrapper would return it: checked against
 * `CreateTaskResultSchema` when `task` was requested, else by {@linkcode plainToolResult}
 * or `CallToolResultSchema`. Throws the SDK's `McpError` (`InvalidParams`) when it fails.
 *
 * @example
 * ```ts
 * import { checkedCallResult } from "./call_tool_handler.ts";
 * checkedCallResult({ content: [{ type: "text", text: "hi" }] }, false);
 * ```
 */
export function checkedCallResult(result: unknown, task: boolean): unknown {
  if (task) {
    const created = CreateTaskResultSchema.safeParse(result);
    if (!created.success) {
      throw new McpError(
        ErrorCode.InvalidParams,
        `Invalid task creation result: ${errorText(created.error)}`,
      );
    }
    return created.data;
  }
  const plain = plainToolResult(result);
  if (plain !== null) return plain;
  const checked = CallToolResultSchema.safeParse(result);
  if (!checked.success) {
    throw new McpError(
      ErrorCode.InvalidParams,
      `Invalid tools/call result: ${errorText(checked.error)}`,
    );
  }
  return checked.data;
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * `result` rebuilt as zod's `CallToolResultSchema` outputs it (keys in the schema's order,
 * the same values), when it has the plain shape: a plain object with only `content` (an
 * array of plain `{ type: "text", text: string }` objects, keys in that order), optionally
 * `structuredContent` (undefined, or a plain object whose own keys are all enumerable
 * strings other than `__proto__`) and optionally `isError` (undefined or a boolean).
 * Null for anything else, which zod then checks.
 *
 * @example
 * ```ts
 * import { plainToolResult } from "./call_tool_handler.ts";
 * plainToolResult({ isError: false, content: [{ type: "text", text: "hi" }] });
 * // { content: [{ type: "text", text: "hi" }], isError: false }
 * plainToolResult({ content: [{ type: "image", data: "", mimeType: "image/png" }] }); // null
 * ```
 */
export function plainToolResult(result: unknown): CallToolResult | null {
  if (!isPlainObject(result)) return null;
  for (const key of Reflect.ownKeys(result)) {
    if (key !== "content" && key !== "structuredContent" && key !== "isError") return null;
    if (!Object.prototype.propertyIsEnumerable.call(result, key)) return null;
  }
  const { content, structuredContent, isError } = result;
  if (!Array.isArray(content) || !content.every(isPlainTextBlock)) return null;
  if (structuredContent !== undefined && !isPlainRecord(structuredContent)) return null;
  if (isError !== undefined && typeof isError !== "boolean") return null;
  const out: CallToolResult = { content: [...content] };
  if ("structuredContent" in result) out.structuredContent = structuredContent;
  if ("isError" in result) out.isError = isError;
  return out;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (typeof v !== "object" || v === null || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

function isPlainTextBlock(v: unknown): boolean {
  if (!isPlainObject(v)) return false;
  const keys = Reflect.ownKeys(v);
  return keys.length === 2 && keys[0] === "type" && keys[1] === "text" &&
    Object.prototype.propertyIsEnumerable.call(v, "type") &&
    Object.prototype.propertyIsEnumerable.call(v, "text") &&
    v.type === "text" && typeof v.text === "string";
}

function isPlainRecord(v: unknown): v is Record<string, unknown> {
  if (!isPlainObject(v)) return false;
  for (const key of Reflect.ownKeys(v)) {
    if (typeof key !== "string" || key === "__proto__") return false;
    if (!Object.prototype.propertyIsEnumerable.call(v, key)) return false;
  }
  return true;
}
