/**
 * Normalizing an extension server's MCP `CallToolResult` into toolhost's {@link ToolResult},
 * with toolhost's limits (the outbound direction, for `toolhost serve`, is
 * `lib/mcp/result_mapping.ts`).
 *
 * @module
 */

import type { Protector } from "../redact/types.ts";
import { redactAcross } from "../redact/pieces.ts";
import { Buffer } from "node:buffer";
import { checkImage, decodeBase64Strict } from "../images/detect.ts";
import { capText, cleanText } from "../text/text_clean.ts";
import { type Block, errorResult, LIMITS, type ToolResult } from "../results/types.ts";
import { jsonText, resultBytes } from "../results/json_text.ts";
import { nestingWithin } from "../results/json_depth.ts";
import { MAX_JSON_DEPTH } from "../protocols/json_precheck.ts";
import { blockNote, inboundAudio, inboundLink, inboundResource } from "./rich_blocks.ts";

function isJsonObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** What {@link fromMcpResult} needs to know about the caller. */
export interface InboundOptions {
  /**
   * Rewrite one text block (e.g. render an odek envelope), given whole (cleaned, not yet
   * cut). Return the same string for "not mine"; a ToolResult replaces the whole result
   * (used to fail closed). Default: text unchanged.
   */
  mapText?: (text: string) => Promise<string | ToolResult>;
  /**
   * Issue 10: a success's text block beyond 64 KiB is handed here whole (cleaned) instead
   * of being truncated; it returns the block's replacement (a preview plus an artifact
   * reference). Default: truncated at 64 KiB.
   */
  spillText?: (text: string) => Promise<string>;
  /** Protected values: every text is redacted whole, before any cut. Default none. */
  protect?: Protector;
}

/**
 * Normalize an extension server's `CallToolResult` into a ToolResult with toolhost's
 * limits: at most 1024 levels of nesting (as a json-protocol result); at most 32 blocks;
 * text cleaned of control characters and capped at 64 KiB;
 * images must be PNG/JPEG/WebP matching their bytes (≤ 4 MiB); audio, embedded resources
 * (text ≤ 64 KiB, blobs ≤ 4 MiB) and resource links are kept, checked as in
 * rich_blocks.ts; a result with
 * no content but an object `structuredContent` becomes one json block. Every text (also
 * of an error result, and a content-less `structuredContent`) goes through `mapText`
 * whole, before any cut or spill, so an envelope is always validated. Whatever the
 * server sends, the outcome is a valid ToolResult (invalid output → error result).
 *
 * @example
 * ```ts
 * import { fromMcpResult } from "./inbound_result.ts";
 * await fromMcpResult({ content: [{ type: "text", text: "hi" }] });
 * // { content: [{ type: "text", text: "hi" }], isError: false }
 * ```
 */
export async function fromMcpResult(
  raw: unknown,
  opts: InboundOptions = {},
): Promise<ToolResult> {
  if (!isJsonObject(raw)) return errorResult("The extension server returned an invalid result.");
  // As a json-protocol result: the walks after the call (redaction) recurse.
  if (!nestingWithin(raw, MAX_JSON_DEPTH)) {
    return errorResult(
      `The extension server's result nests deeper than ${MAX_JSON_DEPTH} levels.`,
    );
  }
  const isError = raw.isError === true;
  const all = Array.isArray(raw.content) ? raw.content : [];
  if (all.length > LIMITS.maxBlocks) {
    return errorResult(
      `The extension server returned more than ${LIMITS.maxBlocks} content blocks.`,
    );
  }
  const items = acrossBlocks(all, opts.protect);
  const blocks: Block[] = [];
  const spill = isError ? undefined : opts.spillText;
  const whole = spill !== undefined || opts.mapText !== undefined;
  for (const [i, item] of items.entries()) {
    const b = inboundBlock(item, i, whole, opts.protect);
    if ("error" in b) return errorResult(b.error);
    if (b.type !== "text") {
      blocks.push(b);
      continue;
    }
    // Envelopes first, on the whole text: a cut or spilled envelope would skip validation.
    const mapped = opts.mapText ? await opts.mapText(b.text) : b.text;
    if (typeof mapped !== "string") return mapped;
    if (mapped === b.text && spill && Buffer.byteLength(b.text) > LIMITS.maxTextBytes) {
      blocks.push({ type: "text", text: await spill(b.text) });
    } else {
      const shown = opts.protect?.text(mapped) ?? mapped; // before the cap cuts it
      blocks.push({ type: "text", text: capText(shown, LIMITS.maxTextBytes) });
    }
  }
  if (blocks.length === 0 && isJsonObject(raw.structuredContent)) {
    const json = await structuredBlock(raw.structuredContent, opts.mapText);
    if (!("type" in json)) return json;
    blocks.push(json);
  }
  if (blocks.length === 0) {
    blocks.push({ type: "text", text: isError ? "The tool failed." : "(no output)" });
  }
  if (isError) {
    const joined = blocks.map(textOf).join("\n");
    return errorResult(capText(opts.protect?.text(joined) ?? joined, LIMITS.maxTextBytes));
  }
  const result: ToolResult = { content: blocks, isError: false };
  const bytes = resultBytes(result);
  if (bytes > LIMITS.maxResultBytes) {
    return errorResult(`The extension's result is ${bytes} bytes; the limit is 8 MiB.`);
  }
  return result;
}

/**
 * `items` with each run of consecutive text items that holds a value across a boundary
 * between two of them redacted as the one text a client shows (cleaned, as they will be):
 * a cut, spill or join of one block later must never leave a part of it beside the other.
 */
function acrossBlocks(items: unknown[], protect: Protector | undefined): unknown[] {
  if (!protect?.active) return items;
  const isText = (x: unknown): x is { type: "text"; text: string } =>
    isJsonObject(x) && x.type === "text" && typeof x.text === "string";
  let out = items;
  for (let i = 0; i < items.length;) {
    let j = i;
    while (j < items.length && isText(items[j])) j++;
    const run = items.slice(i, j) as { type: "text"; text: string }[];
    const clean = run.map((t) => cleanText(t.text));
    const redacted = redactAcross(protect, clean);
    if (redacted !== clean) {
      if (out === items) out = [...items];
      redacted.forEach((text, k) => (out[i + k] = { ...run[k], text }));
    }
    i = Math.max(j, i + 1);
  }
  return out;
}

/** A content-less result's `structuredContent`: an envelope is checked like text. */
async function structuredBlock(
  data: Record<string, unknown>,
  mapText: InboundOptions["mapText"],
): Promise<Block | ToolResult> {
  if (!mapText) return { type: "json", data };
  const text = jsonText({ type: "json", data }) ?? "null";
  const mapped = await mapText(text);
  if (typeof mapped !== "string") return mapped;
  if (mapped === text) return { type: "json", data };
  return { type: "text", text: capText(mapped, LIMITS.maxTextBytes) };
}

function textOf(b: Block): string {
  if (b.type === "text") return b.text;
  if (b.type === "json") return jsonText(b) ?? "null";
  if (b.type === "resource") return b.resource.text ?? `[resource: ${b.resource.uri}]`;
  if (b.type === "image") return "[image]";
  return blockNote(b);
}

function inboundBlock(
  item: unknown,
  i: number,
  whole = false,
  protect?: Protector,
): Block | { error: string } {
  const text = (t: string) => {
    if (whole) return cleanText(t);
    const clean = cleanText(t);
    return capText(protect?.text(clean) ?? clean, LIMITS.maxTextBytes); // redacted, then cut
  };
  const at = `content block ${i + 1}`;
  if (!isJsonObject(item)) return { error: `The extension server returned an invalid ${at}.` };
  if (item.type === "text") {
    if (typeof item.text !== "string") {
      return { error: `The extension server's ${at} has no text.` };
    }
    return { type: "text", text: text(item.text) };
  }
  if (item.type === "image") return inboundImage(item, at);
  if (item.type === "resource") return inboundResource(item, at, protect);
  if (item.type === "resource_link") return inboundLink(item, at, protect);
  if (item.type === "audio") return inboundAudio(item, at);
  return { error: `The extension server returned an unsupported ${at}.` };
}

function inboundImage(item: Record<string, unknown>, at: string): Block | { error: string } {
  const data = typeof item.data === "string" ? item.data : "";
  const bytes = decodeBase64Strict(data, { maxBytes: LIMITS.maxImageBytes });
  if (bytes === null) {
    return { error: `The extension server's ${at} is not valid base64 of at most 4 MiB.` };
  }
  const mime = typeof item.mimeType === "string" ? item.mimeType : undefined;
  const check = checkImage(bytes, mime);
  if (!check.ok) return { error: `The extension server's ${at} was refused: ${check.reason}` };
  return { type: "image", mimeType: check.mimeType, data };
}
