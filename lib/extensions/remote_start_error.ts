/**
 * Why a remote extension could not be connected, as an {@link ExtensionStartError}:
 * value-free, naming what to set when the server refused the credentials, and retryable
 * when a later attempt may reach it.
 *
 * @module
 */

// @ts-types="@modelcontextprotocol/sdk/types"
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import type { ExtensionDecl } from "../workspace/parse_extensions.ts";
import { ExtensionStartError } from "./extension_errors.ts";
import { httpStatusOf } from "./remote_transport.ts";

/**
 * Why a remote extension could not be connected: value-free (never the server's text,
 * a header or a token), naming what to set for 401/403.
 *
 * @example
 * ```ts
 * import type { ExtensionDecl } from "../workspace/parse_extensions.ts";
 * import { remoteStartError } from "./remote_start_error.ts";
 * const e = remoteStartError(new Error("offline"), { name: "fx" } as ExtensionDecl);
 * console.log(e.retryable); // true: the server could not be reached
 * ```
 */
export function remoteStartError(e: unknown, decl: ExtensionDecl): ExtensionStartError {
  const name = `\`${decl.name}\``;
  const status = httpStatusOf(e);
  if (status === 401 || status === 403) {
    const r = decl.remote!;
    const vars = [r.bearerTokenEnvVar, ...Object.values(r.envHttpHeaders)].filter((v) =>
      v !== undefined
    );
    const fix = vars.length > 0
      ? `check that the environment variable ${
        vars.map((v) => `\`${v}\``).join(", ")
      } holds valid credentials`
      : `it needs credentials: set bearer_token_env_var (or env_http_headers) in ${decl.keyPath} and that environment variable`;
    return new ExtensionStartError(
      `The extension ${name} was refused by its server (HTTP ${status}): ${fix}.`,
      false,
    );
  }
  if (e instanceof McpError && e.code === ErrorCode.RequestTimeout) {
    return new ExtensionStartError(
      `The extension ${name} did not answer within ${decl.connectTimeoutMs ?? decl.timeoutMs} ms.`,
      false,
      true,
    );
  }
  if (status !== undefined) {
    return new ExtensionStartError(
      `The extension ${name} cannot connect: its server answered HTTP ${status}.`,
      false,
      status >= 500 || status === 429,
    );
  }
  return new ExtensionStartError(
    `The extension ${name} cannot connect: its server could not be reached or did not speak MCP.`,
    false,
    true,
  );
}
