/**
 * Turning what a handler returns (or throws) into the json-protocol result object, with
 * toolhost's output limits enforced before anything is printed, so an oversized result
 * becomes a clear authored error instead of toolhost's generic invalid-output error.
 *
 * @module
 */

import { utf8Head } from "../lib/text/text_clean.ts";
import { Buffer } from "node:buffer";
import { isAbsolute, resolve } from "node:path";
import { LIMITS } from "../lib/results/types.ts";
import { fsNow } from "./lazy_fs.ts";
import type { Block, ResultObject, ToolOutput } from "./types.ts";

const BLOCK_TYPES = new Set(["text", "json", "image"]);

function isResultObject(v: unknown): v is ResultObject {
  return typeof v === "object" && v !== null && !Array.isArray(v) &&
    Array.isArray((v as ResultObject).content);
}

function isBlock(v: unknown): v is Block {
  return typeof v === "object" && v !== null && BLOCK_TYPES.has((v as Block).type);
}

/**
 * Cut `s` to at most `max` UTF-8 bytes at a character boundary.
 *
 * @example
 * ```ts
 * import { cutUtf8 } from "./result.ts";
 * cutUtf8("héllo", 2); // "h"
 * ```
 */
export function cutUtf8(s: string, max: number): string {
  return utf8Head(s, max);
}

/**
 * An authored-error result: exactly one nonblank text block (cut to 64 KiB).
 *
 * @example
 * ```ts
 * import { errorOutput } from "./result.ts";
 * errorOutput("Choose a smaller range.");
 * // { isError: true, content: [{ type: "text", text: "Choose a smaller range." }] }
 * ```
 */
export function errorOutput(message: string): ResultObject {
  const text = message.trim() === "" ? "The tool failed." : cutUtf8(message, LIMITS.maxTextBytes);
  return { isError: true, content: [{ type: "text", text }] };
}

/**
 * The authored error for a thrown value: an Error's message (it reaches the agent, so
 * throw messages meant for it), else a generic text.
 *
 * @example
 * ```ts
 * import { errorFromThrown } from "./result.ts";
 * errorFromThrown(new Error("No such page."));
 * ```
 */
export function errorFromThrown(e: unknown): ResultObject {
  return errorOutput(e instanceof Error ? e.message : "The tool failed.");
}

function imageFileBytes(path: string, outputDir: string | undefined): number {
  // fsNow() is undefined only on a Node < 20.16 before runHandler's loadFs(): toolhost
  // still checks the file's size when it embeds it.
  if (outputDir === undefined) return 0;
  const fs = fsNow();
  if (fs === undefined) return 0;
  try {
    return fs.statSync(isAbsolute(path) ? path : resolve(outputDir, path)).size;
  } catch {
    return 0; // toolhost reports a missing file itself
  }
}

/** The limit problem of one block, or null. */
function blockProblem(b: Block, i: number, outputDir: string | undefined): string | null {
  const n = i + 1;
  if (b.type === "text") {
    if (typeof b.text !== "string") return `block ${n} has no text`;
    const bytes = Buffer.byteLength(b.text, "utf8");
    if (bytes > LIMITS.maxTextBytes) {
      return `text block ${n} has ${bytes} bytes; the limit is ${LIMITS.maxTextBytes}`;
    }
  } else if (b.type === "json") {
    const compact = JSON.stringify(b.data);
    if (compact === undefined) return `json block ${n} holds no JSON value`;
    const bytes = Buffer.byteLength(compact, "utf8");
    if (bytes > LIMITS.maxJsonBytes) {
      return `json block ${n} has ${bytes} bytes; the limit is ${LIMITS.maxJsonBytes}`;
    }
  } else {
    const bytes = "data" in b
      ? Buffer.from(b.data, "base64").byteLength
      : imageFileBytes(b.path, outputDir);
    if (bytes > LIMITS.maxImageBytes) {
      return `image block ${n} has ${bytes} bytes; the limit is ${LIMITS.maxImageBytes}`;
    }
  }
  return null;
}

/** Serialized size after toolhost embeds path images as base64. */
function embeddedSize(r: ResultObject, outputDir: string | undefined): number {
  let extra = 0;
  for (const b of r.content) {
    if (b.type === "image" && "path" in b) {
      extra += Math.ceil(imageFileBytes(b.path, outputDir) / 3) * 4;
    }
  }
  return Buffer.byteLength(JSON.stringify(r), "utf8") + extra;
}

/**
 * Normalize a handler's return value into a result object within toolhost's limits (1–32
 * blocks, text ≤ 64 KiB, json ≤ 512 KiB, images ≤ 4 MiB, ≤ 8 MiB in all; authored errors
 * carry one nonblank text block). A violation becomes an authored error saying which
 * limit was exceeded. `outputDir` lets path images be measured.
 *
 * @example
 * ```ts
 * import { toResult } from "./result.ts";
 * toResult("hello"); // { content: [{ type: "text", text: "hello" }] }
 * ```
 */
export function toResult(output: ToolOutput, outputDir?: string): ResultObject {
  const tooLarge = (why: string) => errorOutput(`The tool's result was too large: ${why}.`);
  let r: ResultObject;
  if (typeof output === "string") r = { content: [{ type: "text", text: output }] };
  else if (isResultObject(output)) {
    r = output.isError === true
      ? { isError: true, content: output.content }
      : { content: output.content };
  } else if (Array.isArray(output)) r = { content: output };
  else if (isBlock(output)) r = { content: [output] };
  else return errorOutput("The tool returned no content.");
  if (r.isError) {
    const only = r.content.length === 1 && r.content[0].type === "text" ? r.content[0].text : "";
    return errorOutput(typeof only === "string" ? only : "");
  }
  if (r.content.length === 0) return errorOutput("The tool returned no content.");
  if (!r.content.every(isBlock)) {
    return errorOutput("The tool returned something that is not a content block.");
  }
  if (r.content.length > LIMITS.maxBlocks) {
    return tooLarge(`${r.content.length} blocks; the limit is ${LIMITS.maxBlocks}`);
  }
  for (let i = 0; i < r.content.length; i++) {
    const problem = blockProblem(r.content[i], i, outputDir);
    if (problem !== null) return tooLarge(problem);
  }
  const size = embeddedSize(r, outputDir);
  if (size > LIMITS.maxResultBytes) {
    return tooLarge(`${size} bytes in all; the limit is ${LIMITS.maxResultBytes}`);
  }
  return r;
}
