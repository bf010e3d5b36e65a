/**
 * Text helpers of the native tools: UTF-8 boundaries, lossless decoding checks, and
 * splitting long text into blocks within the 64 KiB text-block limit.
 *
 * @module
 */

import { Buffer } from "node:buffer";
import { LIMITS, type TextBlock } from "../results/types.ts";

const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/**
 * The largest `n <= end` such that `bytes[0, n)` does not end inside a UTF-8 sequence
 * (looks back at most 3 bytes).
 *
 * @example
 * ```ts
 * import { utf8Boundary } from "./text.ts";
 * utf8Boundary(new TextEncoder().encode("aé"), 2); // 1
 * ```
 */
export function utf8Boundary(bytes: Uint8Array, end: number): number {
  for (let i = end - 1; i >= 0 && i >= end - 3; i--) {
    const b = bytes[i];
    if ((b & 0xc0) === 0x80) continue; // continuation byte
    const need = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc0 ? 2 : 1;
    return end - i >= need ? end : i;
  }
  return end;
}

/**
 * Decode bytes as text when they are valid UTF-8 without NUL bytes; else undefined.
 *
 * @example
 * ```ts
 * import { decodeText } from "./text.ts";
 * decodeText(new Uint8Array([104, 105])); // "hi"
 * decodeText(new Uint8Array([0xff])); // undefined
 * ```
 */
export function decodeText(bytes: Uint8Array): string | undefined {
  if (bytes.includes(0)) return undefined;
  try {
    return utf8.decode(bytes);
  } catch {
    return undefined;
  }
}

/**
 * Split text into pieces of at most `maxBytes` UTF-8 bytes, never inside a character.
 *
 * @example
 * ```ts
 * import { splitUtf8 } from "./text.ts";
 * splitUtf8("abcdef", 4); // ["abcd", "ef"]
 * ```
 */
export function splitUtf8(text: string, maxBytes: number = LIMITS.maxTextBytes): string[] {
  const bytes = Buffer.from(text, "utf8");
  const out: string[] = [];
  let at = 0;
  while (at < bytes.length) {
    let end = Math.min(bytes.length, at + maxBytes);
    if (end < bytes.length) end = utf8Boundary(bytes, end);
    out.push(bytes.subarray(at, end).toString("utf8"));
    at = end;
  }
  return out;
}

/**
 * Text blocks holding `text` (none for the empty string).
 *
 * @example
 * ```ts
 * import { textBlocks } from "./text.ts";
 * textBlocks("hi"); // [{ type: "text", text: "hi" }]
 * ```
 */
export function textBlocks(text: string, maxBytes: number = LIMITS.maxTextBytes): TextBlock[] {
  return splitUtf8(text, maxBytes).map((t) => ({ type: "text", text: t }));
}

/**
 * `text` cut to at most `maxBytes` UTF-8 bytes at a character boundary.
 *
 * @example
 * ```ts
 * import { fitUtf8 } from "./text.ts";
 * fitUtf8("héllo", 2); // "h"
 * ```
 */
export function fitUtf8(text: string, maxBytes: number): string {
  const bytes = Buffer.from(text, "utf8");
  if (bytes.length <= maxBytes) return text;
  return bytes.subarray(0, utf8Boundary(bytes, maxBytes)).toString("utf8");
}

/**
 * Read exactly `length` bytes at `position` (fewer only at end of file).
 *
 * @example
 * ```ts
 * import { preadFully } from "./text.ts";
 * // const bytes = preadFully(fd, 0, 4096);
 * ```
 */
export function preadFully(
  read: (buf: Uint8Array, off: number, len: number, pos: number) => number,
  position: number,
  length: number,
): Uint8Array {
  const buf = new Uint8Array(length);
  let got = 0;
  while (got < length) {
    const n = read(buf, got, length - got, position + got);
    if (n === 0) break;
    got += n;
  }
  return got === length ? buf : buf.subarray(0, got);
}
