/**
 * Compact JSON of json blocks, computed once per block: the registry measures a result
 * (the 8 MiB bound) and the MCP mapping then needs the same text. Blocks are never
 * mutated after they are built (plugin hooks see frozen copies and replace, redaction
 * builds new blocks), so a block's text can be remembered for the block's lifetime.
 *
 * @module
 */

import { Buffer } from "node:buffer";
import type { Block, JsonBlock, ToolResult } from "./types.ts";

const memo = new WeakMap<JsonBlock, string>();

/**
 * `JSON.stringify(block.data)`, remembered per block; `undefined` for data JSON cannot
 * represent (then nothing is remembered).
 *
 * @example
 * ```ts
 * import { jsonText } from "./json_text.ts";
 * jsonText({ type: "json", data: { n: 1 } }); // '{"n":1}'
 * ```
 */
export function jsonText(block: JsonBlock): string | undefined {
  const known = memo.get(block);
  if (known !== undefined) return known;
  const text = JSON.stringify(block.data) as string | undefined;
  if (text !== undefined) memo.set(block, text);
  return text;
}

/**
 * UTF-8 bytes of `value` as compact JSON (0 for what JSON cannot represent), counted
 * without encoding a copy.
 *
 * @example
 * ```ts
 * import { jsonBytes } from "./json_text.ts";
 * jsonBytes({ a: "é" }); // 10
 * ```
 */
export function jsonBytes(value: unknown): number {
  const text = JSON.stringify(value) as string | undefined;
  return text === undefined ? 0 : Buffer.byteLength(text);
}

const CONTENT_OPEN = '{"content":['.length;
const IS_ERROR = '],"isError":'.length;

/**
 * UTF-8 bytes of `JSON.stringify(result)`, serializing each json block's data only once
 * across this and {@link jsonText}. Results of any other shape are simply serialized.
 *
 * @example
 * ```ts
 * import { resultBytes } from "./json_text.ts";
 * resultBytes({ content: [{ type: "text", text: "hi" }], isError: false }); // 57
 * ```
 */
export function resultBytes(result: ToolResult): number {
  if (!plainShape(result)) return Buffer.byteLength(JSON.stringify(result));
  let bytes = CONTENT_OPEN + IS_ERROR + (result.isError ? 4 : 5) + 1;
  bytes += Math.max(0, result.content.length - 1); // commas between blocks
  for (const b of result.content) {
    const n = blockBytes(b);
    if (n === undefined) return Buffer.byteLength(JSON.stringify(result));
    bytes += n;
  }
  return bytes;
}

/**
 * An upper bound of {@link resultBytes}, without counting UTF-8 (a UTF-16 unit is at most
 * 3 bytes, and at most 6 once escaped in a JSON string): when it is within a limit, so is
 * the result. Json blocks' texts are made (and remembered) as {@link resultBytes} does.
 * `Infinity` for shapes it does not bound.
 *
 * @example
 * ```ts
 * import { resultBytesAtMost } from "./json_text.ts";
 * resultBytesAtMost({ content: [{ type: "text", text: "hi" }], isError: false }); // 67
 * ```
 */
export function resultBytesAtMost(result: ToolResult): number {
  if (!plainShape(result)) return Infinity;
  let bytes = CONTENT_OPEN + IS_ERROR + (result.isError ? 4 : 5) + 1;
  bytes += Math.max(0, result.content.length - 1);
  for (const b of result.content) {
    const keys = Object.keys(b).length;
    if (b.type === "text" && keys === 2 && typeof b.text === "string") {
      bytes += '{"type":"text","text":""}'.length + 6 * b.text.length;
    } else if (b.type === "json" && keys === 2) {
      const text = jsonText(b);
      if (text === undefined) return Infinity;
      bytes += '{"type":"json","data":}'.length + 3 * text.length;
    } else return Infinity;
  }
  return bytes;
}

function plainShape(r: ToolResult): boolean {
  const keys = Object.keys(r);
  return keys.length === 2 && "content" in r && Array.isArray(r.content) &&
    typeof r.isError === "boolean";
}

/** Bytes of one block's JSON, or undefined when it is not a plain block. */
function blockBytes(b: Block): number | undefined {
  const keys = Object.keys(b).length;
  if (b.type === "text" && keys === 2 && typeof b.text === "string") {
    return '{"type":"text","text":}'.length + Buffer.byteLength(JSON.stringify(b.text));
  }
  if (b.type === "json" && keys === 2) {
    const text = jsonText(b);
    return text === undefined ? undefined : '{"type":"json","data":}'.length +
      Buffer.byteLength(text);
  }
  if (
    b.type === "image" && keys === 3 && typeof b.data === "string" &&
    typeof b.mimeType === "string"
  ) {
    return '{"type":"image","mimeType":,"data":}'.length +
      Buffer.byteLength(JSON.stringify(b.mimeType)) + Buffer.byteLength(JSON.stringify(b.data));
  }
  return undefined;
}
