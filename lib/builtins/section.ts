/**
 * The `section` built-in (fixed target): one Markdown section of a file — an ATX heading
 * line and its body up to the next heading of the same or a higher level, ignoring `#`
 * lines inside fenced code blocks.
 *
 * @module
 */

import fs from "node:fs";
import { Buffer } from "node:buffer";
import { errorResult, LIMITS, textResult, type ToolResult } from "../results/types.ts";
import { resolveLogicalPath } from "../paths/resolve.ts";
import type { BuiltinEnv } from "./context.ts";
import { readBounded, withSandbox } from "./common.ts";
import { showPath } from "../paths/show_path.ts";

/** Largest document `section` reads. */
export const MAX_SECTION_FILE_BYTES = 8 * 1024 * 1024;

const LINE_TERMINATOR = /[\n\r\u2028\u2029]/;

function blank(c: string | undefined): boolean {
  return c === " " || c === "\t";
}

/**
 * An ATX heading line's level and text, or null — scanned in one pass. (It was the regex
 * `^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$`, whose lazy text backtracked
 * quadratically over a run of blanks: a document line of a megabyte of spaces held the
 * event loop for minutes. The same lines are headings, with the same text.)
 *
 * @example
 * ```ts
 * import { atxHeading } from "./section.ts";
 * atxHeading("## Usage ##"); // { level: 2, text: "Usage" }
 * ```
 */
export function atxHeading(line: string): { level: number; text: string } | null {
  let i = 0;
  while (i < 3 && line[i] === " ") i++;
  let j = i;
  while (line[j] === "#") j++;
  const level = j - i;
  if (level < 1 || level > 6) return null;
  const rest = line.slice(j);
  if (rest !== "" && !blank(rest[0])) return null;
  if (LINE_TERMINATOR.test(rest)) return null;
  let lead = 0;
  while (blank(rest[lead])) lead++;
  let end = rest.length;
  while (end > lead && blank(rest[end - 1])) end--;
  let hashes = end;
  while (hashes > lead && rest[hashes - 1] === "#") hashes--;
  // A closing run of `#` counts when a blank after the text's first character precedes it.
  if (hashes < end && hashes > lead && blank(rest[hashes - 1])) end = hashes;
  return { level, text: rest.slice(0, end).trim() };
}
const FENCE = /^ {0,3}(`{3,}|~{3,})/;
const TRUNCATED = "\n[Section truncated at 64 KiB.]\n";

interface Heading {
  index: number;
  level: number;
  text: string;
}

/** ATX headings outside fenced code blocks. */
function headings(lines: string[]): Heading[] {
  const out: Heading[] = [];
  let fence: string | null = null;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i].replace(/\r?\n$/, "");
    const f = FENCE.exec(line);
    if (f) {
      if (fence === null) fence = f[1];
      else if (f[1][0] === fence[0] && f[1].length >= fence.length) fence = null;
      continue;
    }
    if (fence !== null) continue;
    const h = atxHeading(line);
    if (h) out.push({ index: i, level: h.level, text: h.text });
  }
  return out;
}

/**
 * Find a section: `heading` is either the heading text (`Usage`, any level) or a heading
 * line (`## Usage`, that level). The first match wins. Returns the section text or null.
 *
 * @example
 * ```ts
 * import { findSection } from "./section.ts";
 * findSection("# A\nx\n## B\ny\n# C\n", "B"); // "## B\ny\n"
 * ```
 */
export function findSection(doc: string, heading: string): string | null {
  const lines = doc.match(/[^\n]*\n|[^\n]+$/g) ?? [];
  const want = heading.trim();
  const asLine = want.startsWith("#") ? atxHeading(want) : null;
  const level = asLine ? asLine.level : 0;
  const name = asLine ? asLine.text : want;
  const all = headings(lines);
  const at = all.findIndex((h) => h.text === name && (level === 0 || h.level === level));
  if (at < 0) return null;
  const start = all[at];
  const next = all.slice(at + 1).find((h) => h.level <= start.level);
  return lines.slice(start.index, next ? next.index : lines.length).join("");
}

function capText(text: string): string {
  if (Buffer.byteLength(text) <= LIMITS.maxTextBytes) return text;
  const room = LIMITS.maxTextBytes - Buffer.byteLength(TRUNCATED);
  let cut = Buffer.from(text).subarray(0, room).toString("utf8");
  if (cut.endsWith("\uFFFD")) cut = cut.slice(0, -1);
  const nl = cut.lastIndexOf("\n");
  return (nl > 0 ? cut.slice(0, nl + 1) : cut) + TRUNCATED;
}

/**
 * Run `section` with its fixed `[file, heading]` arguments.
 *
 * @example
 * ```ts
 * import { runSection } from "./section.ts";
 * // const result = await runSection(["docs/guide.md", "Install"], env);
 * ```
 */
export async function runSection(fixed: string[], env: BuiltinEnv): Promise<ToolResult> {
  const [file, heading] = fixed;
  const r = resolveLogicalPath(env, file);
  const doc = await withSandbox(r, env, (box) => {
    const f = box.openFile(r.components, r.path);
    try {
      if (f.size > MAX_SECTION_FILE_BYTES) return null;
      const bytes = readBounded(f.fd, MAX_SECTION_FILE_BYTES);
      return bytes.length > MAX_SECTION_FILE_BYTES ? null : bytes;
    } finally {
      fs.closeSync(f.fd);
    }
  });
  if (doc === null) {
    return errorResult(`${showPath(r.path)} is larger than 8 MiB; section cannot read it.`);
  }
  let text: string;
  try {
    // Redacted whole before the section and its cap cut it (line breaks kept).
    const shown = env.protect ? env.protect.bytes(doc, 0, doc.byteLength, true) : doc;
    text = new TextDecoder("utf-8", { fatal: true }).decode(shown);
  } catch {
    return errorResult(`${showPath(r.path)} is not valid UTF-8 text.`);
  }
  const section = findSection(text, heading);
  if (section === null) {
    return errorResult(`The heading ${showPath(heading)} was not found in ${showPath(r.path)}.`);
  }
  return textResult(capText(section));
}
