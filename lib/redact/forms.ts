/**
 * The forms a protected value takes in what toolhost hands out: as it is and without its
 * leading and trailing line breaks; flattened to one line as the odek renderer does
 * (` ⏎ ` or a space); cleaned as plain-protocol output is (escape sequences and control
 * characters removed, so CRLF becomes LF); escaped inside a JSON string (also with
 * non-ASCII as `\uXXXX`); percent-encoded as in a URI; as hexadecimal of its UTF-8
 * bytes; and as base64 (standard and URL alphabets) of its bytes at each of the three
 * alignments a byte stream can give it — the characters that depend on the value alone.
 *
 * @module
 */

import { Buffer } from "node:buffer";
import { flattenLine } from "../odek/render.ts";
import { cleanText } from "../protocols/text_clean.ts";

/** Leading or trailing line breaks (as a program's output adds or drops them). */
const EDGE_BREAKS = /^[\r\n]+|[\r\n]+$/g;
/** Shortest base64 core kept as a form (shorter ones would match ordinary text). */
const MIN_BASE64_CORE = 8;

/**
 * Every form of `value` toolhost could hand out, longest first, without duplicates or
 * empty strings.
 *
 * @example
 * ```ts
 * import { valueForms } from "./forms.ts";
 * valueForms("a\"b c").includes('a\\"b c'); // true: escaped inside a JSON string
 * ```
 */
export function valueForms(value: string): string[] {
  const out = new Set<string>();
  const bases = new Set([value, value.replace(EDGE_BREAKS, "")]);
  for (const b of [...bases]) {
    bases.add(cleanText(b));
    bases.add(b.replace(/\r\n/g, "\n"));
  }
  for (const b of bases) {
    if (b === "") continue;
    for (const t of [b, flattenLine(b, " ⏎ "), flattenLine(b, " ")]) {
      out.add(t);
      out.add(JSON.stringify(t).slice(1, -1));
      out.add(asciiJson(t));
      out.add(percent(t, encodeURIComponent));
      out.add(percent(t, encodeURI));
    }
    const bytes = Buffer.from(b, "utf8");
    out.add(bytes.toString("hex"));
    out.add(bytes.toString("hex").toUpperCase());
    for (const core of base64Cores(bytes)) out.add(core);
  }
  out.delete("");
  return [...out].sort((a, b) => b.length - a.length);
}

function asciiJson(s: string): string {
  return JSON.stringify(s).slice(1, -1).replace(
    /[\u007f-\uffff]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}

function percent(s: string, encode: (s: string) => string): string {
  try {
    return encode(s);
  } catch {
    return s; // a lone surrogate cannot be percent-encoded: no such form exists
  }
}

/**
 * The base64 characters that depend on `bytes` alone, for each alignment (0, 1 or 2
 * bytes before it in the encoded stream), in the standard and URL-safe alphabets.
 */
function base64Cores(bytes: Uint8Array): string[] {
  const out: string[] = [];
  for (const pad of [0, 1, 2]) {
    const all = Buffer.concat([Buffer.alloc(pad), bytes]);
    const whole = Math.floor(all.length / 3) * 4; // characters of complete groups
    const skip = pad === 0 ? 0 : pad + 1; // characters that mix in the unknown bytes before
    const core = all.toString("base64").slice(skip, whole);
    if (core.length < MIN_BASE64_CORE) continue;
    out.push(core, core.replace(/\+/g, "-").replace(/\//g, "_"));
  }
  return out;
}
