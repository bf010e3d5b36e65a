/**
 * Mapping toolhost's normalized {@link ToolResult} to an MCP `CallToolResult`, for
 * `toolhost serve` (the inbound direction, extension results, is
 * `lib/extensions/inbound_result.ts`).
 *
 * Outbound rules (`toMcpResult`):
 * - `text` → `{type: "text", text}`;
 * - `json` → `{type: "text", text: <compact JSON>}`, so every client sees the value;
 * - `image` → `{type: "image", data, mimeType}` (already embedded base64);
 * - `audio`, `resource` and `resource_link` pass through as they are, except that a
 *   block the client's protocol version lacks (`opts.protocolVersion`: audio before
 *   2025-03-26, resource_link before 2025-06-18) becomes a short text note;
 * - `isError` is preserved;
 * - `structuredContent` (unless `opts.structuredContent` is false: a client on a protocol
 *   version before 2025-06-18) is added only when the result is a success with exactly one
 *   content block, a `json` block whose value is a JSON object. MCP types
 *   `structuredContent` as an object and expects it to mirror the text content; with
 *   several blocks (or a json array/scalar) there is no single object to mirror without
 *   inventing a wrapper shape, so it is left out and the text carries everything.
 *
 * @module
 */

// @ts-types="@modelcontextprotocol/sdk/types"
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { ToolResult } from "../results/types.ts";
import { jsonText } from "../results/json_text.ts";
import { blockNote, versionHasBlock } from "../extensions/rich_blocks.ts";

/**
 * Map a toolhost result to an MCP `CallToolResult` (rules in the module doc).
 *
 * @example
 * ```ts
 * import { toMcpResult } from "./result_mapping.ts";
 * toMcpResult({ content: [{ type: "json", data: { n: 1 } }], isError: false });
 * // { content: [{ type: "text", text: '{"n":1}' }], isError: false, structuredContent: { n: 1 } }
 * ```
 */
export function toMcpResult(
  result: ToolResult,
  opts: { structuredContent?: boolean; protocolVersion?: string } = {},
): CallToolResult {
  const version = opts.protocolVersion ?? "9999-12-31";
  const content: CallToolResult["content"] = result.content.map((b) => {
    if (b.type === "text") return { type: "text", text: b.text };
    if (b.type === "json") return { type: "text", text: jsonText(b) ?? "null" };
    if (b.type === "image") return { type: "image", data: b.data, mimeType: b.mimeType };
    if (b.type === "resource") return { type: "resource", resource: { ...b.resource } };
    if (!versionHasBlock(version, b.type)) return { type: "text", text: blockNote(b) };
    return { ...b };
  });
  const out: CallToolResult = { content, isError: result.isError };
  const only = result.content.length === 1 ? result.content[0] : undefined;
  const structured = opts.structuredContent ?? true;
  if (structured && !result.isError && only?.type === "json" && isJsonObject(only.data)) {
    out.structuredContent = only.data;
  }
  return out;
}

function isJsonObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
