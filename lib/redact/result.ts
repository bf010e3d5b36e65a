/**
 * The last redaction a result passes before it leaves the registry, on the result as a
 * whole rather than block by block: consecutive text blocks are searched as the one text
 * they form (a value split across two blocks is replaced in both), json blocks string by
 * string, images by their decoded bytes (an image holding a value is withheld), and the
 * serialized result and the text MCP shows (json blocks as their compact JSON, joined
 * with the text blocks next to them) are checked last — a value still found in either,
 * in any form, withholds the whole result.
 *
 * @module
 */

import { Buffer } from "node:buffer";
import { type Block, errorResult, type TextBlock, type ToolResult } from "../results/types.ts";
import type { Range } from "./ranges.ts";
import { redactPieces } from "./pieces.ts";
import { REDACTED } from "./types.ts";
import { jsonText } from "../results/json_text.ts";
import { boundRedacted } from "./bounds.ts";

/** What the boundary needs of a redactor (`Redactor` has it). */
export interface ResultRedactor {
  /** Whether any value is registered. */
  readonly active: boolean;
  /** Merged ranges of occurrences in `s`. */
  ranges(s: string): Range[];
  /** Whether `s` holds a form of a value. */
  leaks(s: string): boolean;
  /** Whether `b` holds the bytes of a form of a value. */
  leaksBytes(b: Uint8Array): boolean;
  /** Whether a JSON value holds one. */
  jsonLeaks(v: unknown): boolean;
  /** A JSON value redacted. */
  json(v: unknown): unknown;
}

/** The text that replaces an image holding a protected value. */
export const WITHHELD_IMAGE = "[an image holding a protected value was withheld]";

/** The error that replaces a result a value could not be removed from. */
export const WITHHELD_RESULT =
  "The result was withheld: it held a protected value in a form that could not be redacted.";

/**
 * `r` with every form of every registered value removed; the same object when nothing
 * was found.
 *
 * @example
 * ```ts
 * import { Redactor } from "./redactor.ts";
 * import { redactResult } from "./result.ts";
 * const red = new Redactor();
 * red.add("tok-123456");
 * const r = redactResult(red, {
 *   content: [{ type: "text", text: "a tok-12" }, { type: "text", text: "3456 b" }],
 *   isError: false,
 * });
 * // r.content: [{ text: "a [protected]" }, { text: " b" }]
 * ```
 */
export function redactResult(red: ResultRedactor, r: ToolResult): ToolResult {
  if (!red.active) return r;
  let changed = false;
  const content: Block[] = [];
  for (let i = 0; i < r.content.length;) {
    const b = r.content[i];
    if (b.type === "text") {
      let j = i;
      while (j < r.content.length && r.content[j].type === "text") j++;
      const run = r.content.slice(i, j) as TextBlock[];
      const out = textRun(red, run);
      if (out !== run) changed = true;
      content.push(...out);
      i = j;
      continue;
    }
    const next = b.type === "json" ? jsonBlock(red, b) : otherBlock(red, b);
    if (next !== b) changed = true;
    content.push(next);
    i++;
  }
  // Replacing a value can grow a result: the bounds hold after redaction too.
  const out = changed ? boundRedacted({ content, isError: r.isError }) : r;
  // The forms that leave: compact JSON of the whole result (escapes, numbers, joins), and
  // the text MCP shows — a json block becomes a text block of its compact JSON, so it
  // joins the text blocks next to it.
  if (red.leaks(JSON.stringify(out.content)) || red.leaks(shownText(out.content))) {
    return errorResult(WITHHELD_RESULT);
  }
  return out;
}

/** Consecutive text and json blocks as MCP clients see them, joined; others separate. */
function shownText(content: readonly Block[]): string {
  if (!content.some((b) => b.type === "json")) return ""; // text runs were redacted whole
  return content.map((b) =>
    b.type === "text" ? b.text : b.type === "json" ? jsonText(b) ?? "null" : "\u0000"
  ).join("");
}

/** Consecutive text blocks, redacted as the one text they form. */
function textRun(red: ResultRedactor, run: TextBlock[]): TextBlock[] {
  const texts = run.map((b) => b.text);
  const out = redactPieces(red, texts);
  if (out === texts) return run;
  const blocks = out.flatMap((text, i) =>
    text !== "" || run[i].text === "" ? [{ type: "text" as const, text }] : []
  );
  return blocks.length > 0 ? blocks : [{ type: "text", text: REDACTED }];
}

function jsonBlock(red: ResultRedactor, b: Extract<Block, { type: "json" }>): Block {
  return red.jsonLeaks(b.data) ? { type: "json", data: red.json(b.data) } : b;
}

function imageBlock(red: ResultRedactor, b: Extract<Block, { type: "image" }>): Block {
  const bytes = Buffer.from(b.data, "base64");
  return red.leaksBytes(bytes) || red.leaks(b.data) ? { type: "text", text: WITHHELD_IMAGE } : b;
}

/** The text that replaces audio or a resource blob holding a protected value. */
export const WITHHELD_BINARY = "[binary content holding a protected value was withheld]";

/**
 * Images, audio, embedded resources and resource links: binary data holding a value is
 * withheld; text fields (a resource's text, a link's name/description/uri) are redacted.
 */
function otherBlock(red: ResultRedactor, b: Exclude<Block, { type: "text" | "json" }>): Block {
  if (b.type === "image") return imageBlock(red, b);
  const data = b.type === "audio" ? b.data : b.type === "resource" ? b.resource.blob : undefined;
  if (data !== undefined) {
    const leaks = red.leaksBytes(Buffer.from(data, "base64")) || red.leaks(data);
    if (leaks) return { type: "text", text: WITHHELD_BINARY };
  }
  return red.jsonLeaks(b) ? red.json(b) as Block : b;
}
