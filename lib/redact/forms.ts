/**
 * The forms a protected value takes in what toolhost hands out: as it is and without its
 * leading and trailing line breaks; with its line breaks as LF or CRLF (a file written on
 * Windows); flattened to one line as the odek renderer does (` ⏎ ` or a space); cleaned as
 * plain-protocol output is (escape sequences and control characters removed, so CRLF
 * becomes LF); written inside another format the way common encoders write it (JSON
 * strings, quoted literals, URLs, form bodies, HTML: see escapes.ts); as hexadecimal of its
 * UTF-8 bytes; as UTF-16 (LE and BE, a one-line ASCII value: what a Windows tool writes to
 * a file); and as base64 (standard and URL alphabets) of its UTF-8 and UTF-16 bytes at
 * each of the three alignments a byte stream can give it — the characters that depend on
 * the value alone.
 *
 * @module
 */

import { Buffer } from "node:buffer";
import { flattenLine } from "../odek/render.ts";
import { cleanText, withoutFormat } from "../text/text_clean.ts";
import { ESCAPERS, OWN_ESCAPERS } from "./escapes.ts";
import { REDACTED } from "./types.ts";

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
  for (const b of bases(value)) {
    for (const t of [b, withCrlf(b)]) for (const escape of ESCAPERS) out.add(escape(t));
    // Flattened lines are toolhost's own (odek renders): its own encoders suffice.
    for (const t of [flattenLine(b, " ⏎ "), flattenLine(b, " ")]) {
      for (const escape of OWN_ESCAPERS) out.add(escape(t));
    }
    const bytes = Buffer.from(b, "utf8");
    out.add(bytes.toString("hex"));
    out.add(bytes.toString("hex").toUpperCase());
    for (const core of base64Cores(bytes)) out.add(core);
    for (const wide of utf16(b)) {
      out.add(wide);
      for (const core of base64Cores(Buffer.from(wide, "latin1"))) out.add(core);
    }
  }
  besideMarker(out);
  out.delete("");
  return [...out].sort((a, b) => b.length - a.length);
}

/**
 * Add, for each form that begins with what the marker ends with (`]…`, `ed]…`) or ends
 * with what it begins with (`…[`, `…[pro`), the form without that overlap. Redaction
 * replaces every occurrence once, so a marker next to such a part would otherwise form
 * the value again (`]abc` + `abc` → `[protected]abc`): the part is itself an
 * occurrence, touching the one before it, and goes with it.
 */
function besideMarker(forms: Set<string>): void {
  for (const f of [...forms]) {
    const heads = [0, ...overlaps(REDACTED, f)];
    const tails = [0, ...overlaps(f, REDACTED)];
    for (const k of heads) {
      for (const j of tails) {
        if (k + j > 0 && k + j < f.length) forms.add(f.slice(k, f.length - j));
      }
    }
  }
}

/** Lengths `n` (shorter than both) where `a` ends with the first `n` units of `b`. */
function overlaps(a: string, b: string): number[] {
  const out: number[] = [];
  for (let n = 1; n < Math.min(a.length, b.length); n++) {
    if (a.endsWith(b.slice(0, n))) out.push(n);
  }
  return out;
}

/** The value, without its edge line breaks, cleaned as plain output, with LF for CRLF. */
function bases(value: string): Set<string> {
  const bases = new Set([value, value.replace(EDGE_BREAKS, "")]);
  for (const b of [...bases]) {
    bases.add(cleanText(b));
    bases.add(withoutFormat(cleanText(b))); // as the --stderr copy shows it (copy.ts)
    bases.add(b.replace(/\r\n/g, "\n"));
  }
  bases.delete("");
  return bases;
}

/** `s` with CRLF line breaks, as a file written on Windows holds it. */
function withCrlf(s: string): string {
  return s.replace(/\r?\n/g, "\r\n");
}

/**
 * A one-line ASCII text (a token, a password) as UTF-16LE and UTF-16BE bytes, one
 * character per byte (so its UTF-8 bytes are those bytes too); none for other texts.
 */
function utf16(s: string): string[] {
  if (!/^[\x20-\x7e]+$/.test(s)) return [];
  return [s.replace(/[\s\S]/g, "$&\u0000"), s.replace(/[\s\S]/g, "\u0000$&")];
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
