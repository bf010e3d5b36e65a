/**
 * Shape rules of a json-protocol result: a closed object with `content` (1–32 closed
 * blocks) and optional boolean `isError`. Rule texts name the rule and the block number,
 * never a value or a field name chosen by the tool.
 *
 * @module
 */

import { jsonText } from "../results/json_text.ts";
import { Buffer } from "node:buffer";
import { type JsonBlock, LIMITS, type TextBlock } from "../results/types.ts";

/** An image block as the tool wrote it (still to be admitted). */
export interface RawImage {
  /** The declared MIME type. */
  mimeType: string;
  /** Standard base64 bytes, when given. */
  data?: string;
  /** A file below the output directory, when given. */
  path?: string;
}

/** Outcome of checking one block. */
export type BlockCheck =
  | { ok: true; block: TextBlock | JsonBlock }
  | { ok: true; image: RawImage }
  | { ok: false; rule: string };

/** Outcome of checking the result object. */
export type ShapeCheck =
  | { ok: true; isError: boolean; blocks: unknown[] }
  | { ok: false; rule: string };

/**
 * True for a non-null, non-array object.
 *
 * @example
 * ```ts
 * import { isPlainObject } from "./json_validate.ts";
 * isPlainObject([]); // false
 * ```
 */
export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function onlyKeys(o: Record<string, unknown>, allowed: readonly string[]): boolean {
  return Object.keys(o).every((k) => allowed.includes(k));
}

/**
 * Check the result object: closed keys, `content` an array of 1–32 entries, `isError`
 * boolean when present.
 *
 * @example
 * ```ts
 * import { checkResultShape } from "./json_validate.ts";
 * checkResultShape({ content: [], extra: 1 }); // { ok: false, rule: "the result allows only `content` and `isError`" }
 * ```
 */
export function checkResultShape(value: unknown): ShapeCheck {
  if (!isPlainObject(value)) return { ok: false, rule: "the result must be a JSON object" };
  if (!onlyKeys(value, ["content", "isError"])) {
    return { ok: false, rule: "the result allows only `content` and `isError`" };
  }
  const content = value.content;
  if (!Array.isArray(content) || content.length < 1 || content.length > LIMITS.maxBlocks) {
    return { ok: false, rule: "`content` must be an array of 1 to 32 blocks" };
  }
  const isError = Object.hasOwn(value, "isError") ? value.isError : false;
  if (typeof isError !== "boolean") return { ok: false, rule: "`isError` must be a boolean" };
  return { ok: true, isError, blocks: content };
}

function checkText(b: Record<string, unknown>, at: string): BlockCheck {
  if (!onlyKeys(b, ["type", "text"])) {
    return { ok: false, rule: `${at}: text blocks allow only \`type\` and \`text\`` };
  }
  if (typeof b.text !== "string") return { ok: false, rule: `${at}: \`text\` must be a string` };
  if (Buffer.byteLength(b.text, "utf8") > LIMITS.maxTextBytes) {
    return { ok: false, rule: `${at}: the text is larger than 64 KiB` };
  }
  return { ok: true, block: { type: "text", text: b.text } };
}

function checkJson(b: Record<string, unknown>, at: string): BlockCheck {
  if (!onlyKeys(b, ["type", "data"])) {
    return { ok: false, rule: `${at}: json blocks allow only \`type\` and \`data\`` };
  }
  if (!Object.hasOwn(b, "data")) return { ok: false, rule: `${at}: json blocks need \`data\`` };
  const block: JsonBlock = { type: "json", data: b.data };
  let size: number;
  try {
    // jsonText keeps the text: the 8 MiB check and the MCP mapping reuse it.
    size = Buffer.byteLength(jsonText(block) ?? "null", "utf8");
  } catch {
    return { ok: false, rule: `${at}: the json data is nested too deeply` };
  }
  if (size > LIMITS.maxJsonBytes) {
    return { ok: false, rule: `${at}: the json data is larger than 512 KiB (compact)` };
  }
  return { ok: true, block };
}

function checkImageShape(b: Record<string, unknown>, at: string): BlockCheck {
  if (!onlyKeys(b, ["type", "mimeType", "data", "path"])) {
    return {
      ok: false,
      rule: `${at}: image blocks allow only \`type\`, \`mimeType\` and one of \`data\` or \`path\``,
    };
  }
  if (typeof b.mimeType !== "string") {
    return { ok: false, rule: `${at}: \`mimeType\` must be a string` };
  }
  const hasData = Object.hasOwn(b, "data");
  if (hasData === Object.hasOwn(b, "path")) {
    return { ok: false, rule: `${at}: image blocks need exactly one of \`data\` or \`path\`` };
  }
  const value = hasData ? b.data : b.path;
  if (typeof value !== "string") {
    return { ok: false, rule: `${at}: \`${hasData ? "data" : "path"}\` must be a string` };
  }
  return {
    ok: true,
    image: hasData ? { mimeType: b.mimeType, data: value } : { mimeType: b.mimeType, path: value },
  };
}

/**
 * Check one content block (`index` is 0-based; messages count from 1).
 *
 * @example
 * ```ts
 * import { checkBlock } from "./json_validate.ts";
 * checkBlock({ type: "text", text: "hi" }, 0); // { ok: true, block: { type: "text", text: "hi" } }
 * ```
 */
export function checkBlock(block: unknown, index: number): BlockCheck {
  const at = `content block ${index + 1}`;
  if (!isPlainObject(block)) return { ok: false, rule: `${at} must be an object` };
  if (block.type === "text") return checkText(block, at);
  if (block.type === "json") return checkJson(block, at);
  if (block.type === "image") return checkImageShape(block, at);
  return { ok: false, rule: `${at}: \`type\` must be text, json or image` };
}

/**
 * True when `text` has a non-whitespace character.
 *
 * @example
 * ```ts
 * import { isNonblank } from "./json_validate.ts";
 * isNonblank(" \n"); // false
 * ```
 */
export function isNonblank(text: string): boolean {
  return /\S/u.test(text);
}
