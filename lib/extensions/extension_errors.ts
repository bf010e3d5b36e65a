/**
 * The errors of talking to an extension server, and their value-free messages: never the
 * server's text, a header, a token or an argument value.
 *
 * @module
 */

// @ts-types="@modelcontextprotocol/sdk/types"
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { ToolhostError } from "../errors/errors.ts";
import type { ExtensionDecl } from "../workspace/parse_extensions.ts";
import { NotDeliveredError } from "./group_transport.ts";
import { httpStatusOf } from "./remote_transport.ts";

/**
 * A call failed in a way the model should see as an error result.
 *
 * @example
 * ```ts
 * import { ExtensionCallError } from "./extension_errors.ts";
 * new ExtensionCallError("The extension `fx` ended.").code; // "TOOL_ERROR"
 * ```
 */
export class ExtensionCallError extends ToolhostError {
  /** Create a value-free extension error. */
  constructor(message: string) {
    super("TOOL_ERROR", message);
  }
}

/**
 * Starting a server failed; `spawned` says whether its process had started.
 *
 * @example
 * ```ts
 * import { ExtensionStartError } from "./extension_errors.ts";
 * new ExtensionStartError("The extension `fx` cannot start.", false).spawned; // false
 * ```
 */
export class ExtensionStartError extends ExtensionCallError {
  /** The process was spawned (then stopped again). */
  readonly spawned: boolean;
  /**
   * A later attempt may succeed (a remote server that could not be reached), so the
   * failure is not kept for good. Default false.
   */
  readonly retryable: boolean;
  /** Create the error. */
  constructor(message: string, spawned: boolean, retryable = false) {
    super(message);
    this.spawned = spawned;
    this.retryable = retryable;
  }
}

/**
 * The value-free message of a failure talking to extension `decl`.
 *
 * @example
 * ```ts
 * import { extensionMessage } from "./extension_errors.ts";
 * // extensionMessage(error, decl) → "The extension `fx` ended."
 * ```
 */
export function extensionMessage(e: unknown, decl: ExtensionDecl): string {
  const name = `\`${decl.name}\``;
  if (e instanceof ExtensionCallError) return e.message;
  if (e instanceof McpError) {
    if (e.code === ErrorCode.RequestTimeout) {
      return `The extension ${name} did not answer within ${decl.timeoutMs} ms.`;
    }
    if (e.code === ErrorCode.ConnectionClosed) return `The extension ${name} ended.`;
    if (e.code === ErrorCode.InvalidParams || e.code === ErrorCode.MethodNotFound) {
      return `The extension ${name} refused the request (MCP error ${e.code}).`;
    }
    return `The extension ${name} failed (MCP error ${e.code}).`;
  }
  if (e instanceof ToolhostError) return `The extension ${name} cannot start: ${e.message}`;
  const status = decl.remote ? httpStatusOf(e) : undefined;
  if (status !== undefined) return `The extension ${name} answered HTTP ${status}.`;
  return `The extension ${name} failed.`;
}

/**
 * True when a request failed before it reached the server (so it never ran).
 *
 * @example
 * ```ts
 * import { notDelivered } from "./extension_errors.ts";
 * notDelivered(new Error("Not connected")); // true
 * ```
 */
export function notDelivered(e: unknown): boolean {
  return e instanceof NotDeliveredError ||
    (e instanceof Error && !(e instanceof McpError) && e.message === "Not connected");
}
