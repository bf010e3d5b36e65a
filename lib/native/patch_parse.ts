/**
 * Parsing unified diffs (`diff -u`, `git diff`): per file a `---`/`+++` header (`a/`,
 * `b/` prefixes and trailing timestamps stripped; `/dev/null` for creation or deletion)
 * and `@@ -l,s +l,s @@` hunks of context (` `), removed (`-`) and added (`+`) lines, with
 * `\ No newline at end of file`. Git's extended headers (`diff --git`, `index`, modes)
 * are skipped. Renames, copies, binary patches and quoted paths are refused.
 *
 * @module
 */

import { ToolhostError } from "../errors/errors.ts";

/** One hunk. Line texts include their newline unless it was marked missing. */
export interface Hunk {
  /** 1-based first old line (0 when the old side is empty). */
  oldStart: number;
  /** Old side length. */
  oldCount: number;
  /** 1-based first new line. */
  newStart: number;
  /** New side length. */
  newCount: number;
  /** The old side's lines (context and removed). */
  oldLines: string[];
  /** The new side's lines (context and added). */
  newLines: string[];
}

/** One file of a patch. */
export interface FilePatch {
  /** Logical path (as written, prefix stripped). */
  path: string;
  /** `modify`, `create` (old side /dev/null) or `delete` (new side /dev/null). */
  action: "modify" | "create" | "delete";
  /** Hunks in order. */
  hunks: Hunk[];
}

/** A patch that cannot be parsed (the message names the line number, never its text). */
export class PatchParseError extends ToolhostError {
  /** Create a parse error. */
  constructor(message: string) {
    super("TOOL_ERROR", `The patch could not be parsed: ${message}`);
  }
}

const HUNK = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/;

function headerPath(line: string, prefix: "--- " | "+++ ", n: number): string | null {
  let p = line.slice(prefix.length);
  const tab = p.indexOf("\t");
  if (tab >= 0) p = p.slice(0, tab);
  p = p.trimEnd(); // the same characters as /\s+$/, without its quadratic backtracking
  if (p.startsWith('"')) throw new PatchParseError(`line ${n}: quoted paths are not supported`);
  if (p === "/dev/null") return null;
  if (p.startsWith("a/") || p.startsWith("b/")) p = p.slice(2);
  if (p === "") throw new PatchParseError(`line ${n}: the file header has no path`);
  return p;
}

function parseHunk(lines: string[], i: number): { hunk: Hunk; next: number } {
  const m = HUNK.exec(lines[i]);
  if (!m) throw new PatchParseError(`line ${i + 1}: expected a hunk header (@@ -l,s +l,s @@)`);
  const hunk: Hunk = {
    oldStart: Number(m[1]),
    oldCount: m[2] === undefined ? 1 : Number(m[2]),
    newStart: Number(m[3]),
    newCount: m[4] === undefined ? 1 : Number(m[4]),
    oldLines: [],
    newLines: [],
  };
  let o = 0;
  let n = 0;
  let j = i + 1;
  let last: "old" | "new" | "both" | null = null;
  while (
    j < lines.length && (o < hunk.oldCount || n < hunk.newCount || lines[j]?.startsWith("\\"))
  ) {
    const l = lines[j];
    if (l.startsWith("\\")) {
      const strip = (a: string[]) => (a[a.length - 1] = a[a.length - 1].replace(/\n$/, ""));
      if (last === "old" || last === "both") strip(hunk.oldLines);
      if (last === "new" || last === "both") strip(hunk.newLines);
      j++;
      continue;
    }
    const tag = l === "" ? " " : l[0];
    const text = `${l.slice(1)}\n`;
    if (tag === " ") {
      hunk.oldLines.push(text);
      hunk.newLines.push(text);
      o++;
      n++;
      last = "both";
    } else if (tag === "-") {
      hunk.oldLines.push(text);
      o++;
      last = "old";
    } else if (tag === "+") {
      hunk.newLines.push(text);
      n++;
      last = "new";
    } else throw new PatchParseError(`line ${j + 1}: unexpected line inside a hunk`);
    j++;
  }
  if (o !== hunk.oldCount || n !== hunk.newCount) {
    throw new PatchParseError(`line ${i + 1}: the hunk's line counts do not match its header`);
  }
  return { hunk, next: j };
}

/**
 * Parse a unified diff into file patches (at least one).
 *
 * @throws {PatchParseError} for malformed or unsupported input.
 * @example
 * ```ts
 * import { parseUnifiedDiff } from "./patch_parse.ts";
 * const files = parseUnifiedDiff("--- a/x.txt\n+++ b/x.txt\n@@ -1 +1 @@\n-a\n+b\n");
 * files[0].path; // "x.txt"
 * ```
 */
export function parseUnifiedDiff(patch: string): FilePatch[] {
  const lines = patch.replace(/\r\n/g, "\n").split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  const out: FilePatch[] = [];
  let i = 0;
  while (i < lines.length) {
    const l = lines[i];
    if (/^(rename|copy) (from|to) |^GIT binary patch|^Binary files /.test(l)) {
      throw new PatchParseError(
        `line ${i + 1}: renames, copies and binary patches are not supported`,
      );
    }
    if (!l.startsWith("--- ")) {
      i++;
      continue;
    }
    if (!lines[i + 1]?.startsWith("+++ ")) {
      throw new PatchParseError(`line ${i + 2}: expected +++ after ---`);
    }
    const oldPath = headerPath(l, "--- ", i + 1);
    const newPath = headerPath(lines[i + 1], "+++ ", i + 2);
    if (oldPath === null && newPath === null) {
      throw new PatchParseError(`line ${i + 1}: both sides are /dev/null`);
    }
    if (oldPath !== null && newPath !== null && oldPath !== newPath) {
      throw new PatchParseError(
        `line ${i + 1}: renames are not supported (old and new paths differ)`,
      );
    }
    const fp: FilePatch = {
      path: (newPath ?? oldPath)!,
      action: oldPath === null ? "create" : newPath === null ? "delete" : "modify",
      hunks: [],
    };
    i += 2;
    while (i < lines.length && lines[i].startsWith("@@")) {
      const { hunk, next } = parseHunk(lines, i);
      fp.hunks.push(hunk);
      i = next;
    }
    if (fp.hunks.length === 0) throw new PatchParseError(`line ${i}: a file has no hunks`);
    out.push(fp);
  }
  if (out.length === 0) throw new PatchParseError("no file headers (--- / +++) were found");
  return out;
}
