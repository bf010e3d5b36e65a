/**
 * Model-facing rendering of a validated envelope, and counting of rendered artifact lines.
 *
 * Output shape (one line of text, then one line per artifact):
 *
 * ```
 * <text, flattened to one line>
 * [artifact] id="r1" type="application/json" size=5120 bytes sha256=0123456789ab summary="..."
 * ```
 *
 * @module
 */

import { cutUnits } from "../text/text_clean.ts";
import { isRecord } from "./envelope.ts";
import type { Envelope } from "./types.ts";

/** Start of every rendered artifact metadata line; {@link countRendered} counts these. */
export const ARTIFACT_LINE_PREFIX = "[artifact] id=";

/** Options of {@link renderEnvelope}. */
export interface RenderOptions {
  /**
   * Measured file sizes, by ref index (e.g. from `inspectArtifactRef`). A valid entry
   * wins over the ref's `size_bytes`; with neither, the size renders as `unknown`.
   * Default: none.
   */
  sizes?: readonly (number | undefined)[];
  /** Max UTF-16 units kept of `id` and `media_type` (longer ones end in `…`). Default 256. */
  maxIdChars?: number;
  /** Max UTF-16 units kept of `summary` (longer ones end in `…`). Default 1024. */
  maxSummaryChars?: number;
  /**
   * Applied to each string as it is shown — after flattening, before clipping — so a value
   * that flattening forms (a tab where a protected value has its space) is replaced whole
   * and a clip never leaves part of it. Default: none.
   */
  redact?: (s: string) => string;
}

// deno-lint-ignore no-control-regex -- matching control characters is the point
const LINE_BREAKS = /\r\n|[\n\r\u000B\u000C\u0085\u2028\u2029]/g;
// deno-lint-ignore no-control-regex -- matching control characters is the point
const CONTROLS = /[\u0000-\u001F\u007F-\u009F]/g;
const INVISIBLE = /[\u061C\u180E\u200B-\u200F\u202A-\u202E\u2060-\u2064\u2066-\u2069\uFEFF]/g;
const LONE_SURROGATE = /[\uD800-\uDFFF]/gu;
const ARTIFACT_WORD = /^artifact/i;
const SHA256_HEX = /^[0-9a-f]{64}$/;

/**
 * Whether a text starts like an artifact metadata line: blanks, backslashes, blanks, `[`,
 * blanks, `artifact` (any case). Scanned in one pass: the regex
 * `^\s*\\*\s*\[\s*artifact` backtracked quadratically over a leading run of blanks (40,000
 * took 1.7 s; an envelope's text may hold megabytes).
 *
 * @example
 * ```ts
 * import { markerLike } from "./render.ts";
 * markerLike("  \\[ ARTIFACT] id=x"); // true
 * markerLike("see [artifact]"); // false
 * ```
 */
export function markerLike(text: string): boolean {
  let s = text.trimStart(); // trimStart removes exactly the characters \s matches
  let i = 0;
  while (s[i] === "\\") i++;
  s = s.slice(i).trimStart();
  return s.startsWith("[") && ARTIFACT_WORD.test(s.slice(1).trimStart());
}

/**
 * Flatten a server-controlled string to one line: line breaks (CR, LF, CRLF, VT, FF,
 * U+0085, U+2028, U+2029) become `lineBreak`, other C0/C1 controls a space, invisible
 * format and bidi controls and lone surrogates U+FFFD.
 *
 * @example
 * ```ts
 * import { flattenLine } from "./render.ts";
 * flattenLine("a\r\nb\u2028c", " "); // "a b c"
 * ```
 */
export function flattenLine(s: string, lineBreak: string): string {
  return s.replace(LONE_SURROGATE, "\uFFFD")
    .replace(LINE_BREAKS, lineBreak)
    .replace(CONTROLS, " ")
    .replace(INVISIBLE, "\uFFFD");
}

function clip(s: string, max: number): string {
  return s.length <= max ? s : `${cutUnits(s, Math.max(0, max - 1))}…`;
}

function quoted(v: unknown, max: number, redact: (s: string) => string): string {
  const s = typeof v === "string" ? v : "";
  return JSON.stringify(clip(redact(flattenLine(s, " ")), max));
}

function sizeOf(measured: unknown, declared: unknown): string {
  for (const v of [measured, declared]) {
    if (typeof v === "number" && Number.isSafeInteger(v) && v >= 0) return `${v} bytes`;
  }
  return "unknown";
}

function artifactLine(ref: unknown, measured: unknown, opts: Required<RenderOptions>): string {
  const r = isRecord(ref) ? ref : {};
  const get = (k: string) => (Object.hasOwn(r, k) ? r[k] : undefined);
  const sha = get("sha256");
  const summary = get("summary");
  const q = (v: unknown, max: number) => quoted(v, max, opts.redact);
  return ARTIFACT_LINE_PREFIX + q(get("id"), opts.maxIdChars) +
    ` type=${q(get("media_type"), opts.maxIdChars)}` +
    ` size=${sizeOf(measured, get("size_bytes"))}` +
    ` sha256=${typeof sha === "string" && SHA256_HEX.test(sha) ? sha.slice(0, 12) : "-"}` +
    ` summary=${typeof summary === "string" ? q(summary, opts.maxSummaryChars) : "-"}`;
}

/**
 * Render the model-facing form of a validated envelope: the text flattened to one line
 * (line breaks shown as ` ⏎ `; a text that would begin like a metadata line is prefixed
 * with `\`), then one metadata line per artifact with its id, media type, size, the
 * first 12 hex digits of its hash and its summary, each string flattened and
 * JSON-quoted. It never includes a path, a URI or artifact content. For any input,
 * `countRendered(renderEnvelope(env))` equals `env.artifacts.length`.
 *
 * The size shown is `options.sizes[i]` (the measured size) when given, else the ref's
 * `size_bytes` (which validation proved equal to the file), else `unknown`.
 *
 * @example
 * ```ts
 * import { renderEnvelope } from "./render.ts";
 * const env = { schema: "odek.tool-result/v1", text: "2 results", artifacts: [
 *   { schema: "odek.artifact-ref/v1", id: "r1", uri: "file:///o/r1.json", media_type: "application/json", size_bytes: 10 },
 * ] };
 * renderEnvelope(env);
 * // 2 results
 * // [artifact] id="r1" type="application/json" size=10 bytes sha256=- summary=-
 * ```
 */
export function renderEnvelope(env: Envelope, options: RenderOptions = {}): string {
  const opts: Required<RenderOptions> = {
    sizes: options.sizes ?? [],
    maxIdChars: options.maxIdChars ?? 256,
    maxSummaryChars: options.maxSummaryChars ?? 1024,
    redact: options.redact ?? ((s) => s),
  };
  const e: Record<string, unknown> = isRecord(env) ? env as unknown as Record<string, unknown> : {};
  let text = opts.redact(flattenLine(typeof e.text === "string" ? e.text : "", " ⏎ "));
  if (markerLike(text)) text = "\\" + text;
  const refs: unknown[] = Array.isArray(e.artifacts) ? e.artifacts : [];
  const lines = refs.map((ref, i) => artifactLine(ref, opts.sizes[i], opts));
  return text === "" ? lines.join("\n") : [text, ...lines].join("\n");
}

/**
 * Count the artifact metadata lines in a string produced by {@link renderEnvelope}:
 * lines (split on LF) that begin with `[artifact] id=`. Plain text results give 0.
 *
 * @example
 * ```ts
 * import { countRendered } from "./render.ts";
 * countRendered("just text"); // 0
 * countRendered('ok\n[artifact] id="a" type="text/plain" size=1 bytes sha256=- summary=-'); // 1
 * ```
 */
export function countRendered(s: string): number {
  if (typeof s !== "string") return 0;
  let n = 0;
  for (const line of s.split("\n")) if (line.startsWith(ARTIFACT_LINE_PREFIX)) n++;
  return n;
}
