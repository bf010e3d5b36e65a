/**
 * `files_search`: literal, case-sensitive text search over files (default 200 matches).
 * Files over 4 MiB are skipped and reported, binary files (NUL bytes) are skipped, and
 * a cumulative scan budget (128 MiB read) bounds the whole search. One match per line,
 * with its 1-based line and byte column and the line's text (cut to 500 code units).
 *
 * @module
 */

import { protectGlob } from "../redact/glob.ts";
import fs from "node:fs";
import { Buffer } from "node:buffer";
import { jsonResult, LIMITS, type ToolResult } from "../results/types.ts";
import { type ResolvedPath, resolveLogicalPath } from "../paths/resolve.ts";
import { type CompiledGlob, compileGlob } from "../glob/pattern.ts";
import { openFileSize } from "../pins/proc_fd.ts";
import { jsonBytes, ownership, withSandbox } from "../builtins/common.ts";
import type { BuiltinEnv } from "../builtins/context.ts";
import { type ByteScanner, withByteScanner } from "../grep/byte_scan.ts";
import { NATIVE_LIMITS } from "./limits.ts";
import { traverse } from "./traverse.ts";
import type { Protector } from "../redact/types.ts";
import { redactScanned, withProtectedLiterals } from "../redact/scan.ts";

/** Arguments of `files_search`. */
export interface FilesSearchArgs {
  /** Literal text. */
  query: string;
  /** File or folder (default root). */
  path?: string;
  /** Only files whose relative path (or name, for a pattern without `/`) matches. */
  glob?: string;
  /** Matches at most (default 200). */
  maxMatches?: number;
}

/** Bounds (tests and benchmarks may lower or lift them). */
export interface SearchLimits {
  /** Largest file searched. */
  maxFileBytes: number;
  /** Cumulative bytes read. */
  scanBudget: number;
  /** Entries visited. */
  scanEntries: number;
}

/** One match. */
export interface SearchMatch {
  /** Logical path. */
  path: string;
  /** 1-based line. */
  line: number;
  /** 1-based byte column of the first match on the line. */
  column: number;
  /** The line's text (cut). */
  text: string;
}

interface SearchState {
  scanner: ByteScanner;
  protect?: Protector;
  /** Index of the first protected-value literal in the scanner (-1: searched in JS). */
  protectFrom: number;
  max: number;
  lim: SearchLimits;
  matches: SearchMatch[];
  budgetBytes: number;
  files: number;
  bytes: number;
  oversized: number;
  binary: number;
  full: boolean;
  outOfBudget: boolean;
}

function lineText(data: Uint8Array, start: number, end: number): string {
  const cut = Math.min(end, start + NATIVE_LIMITS.searchLineUnits * 4);
  const s = Buffer.from(data.buffer, data.byteOffset + start, cut - start).toString("utf8");
  return s.length > NATIVE_LIMITS.searchLineUnits ? s.slice(0, NATIVE_LIMITS.searchLineUnits) : s;
}

/** Search the first `len` bytes of the scanner's data; false when a limit stopped it. */
function searchData(st: SearchState, len: number, path: string): boolean {
  const sc = st.scanner;
  let at = sc.findLiteral(0, 0, len);
  if (at < 0) return true;
  if (sc.find(0, len, 0) >= 0) {
    st.binary++;
    return true;
  }
  const data = sc.data();
  let line = 1;
  let counted = 0;
  while (at >= 0) {
    line += sc.count(counted, at, 10);
    const nl = sc.findLast(counted, at, 10);
    const start = nl < 0 ? counted : nl + 1;
    let end = sc.find(at, len, 10);
    if (end < 0) end = len;
    const m = { path, line, column: at - start + 1, text: lineText(data, start, end) };
    const cost = jsonBytes(m) + 1;
    if (st.matches.length === st.max || cost > st.budgetBytes) {
      st.full = true;
      return false;
    }
    st.budgetBytes -= cost;
    st.matches.push(m);
    counted = at;
    at = end >= len ? -1 : sc.findLiteral(0, end + 1, len);
  }
  return true;
}

/**
 * Replace the protected values in the first `len` bytes of the scanner's data (line breaks
 * kept, so line numbers stay true) and return the new length: the search runs on the text
 * as it would be handed out, so no match can overlap a value and a guess at one is found
 * exactly as often as a wrong guess — never.
 */
function redactData(st: SearchState, len: number): number {
  return redactScanned(st.scanner, st.protect, st.protectFrom, len);
}

/** Read and search one open file; false when a limit stopped the search. */
function searchFd(st: SearchState, fd: number, path: string): boolean {
  // The host's own stat of `/proc/<pid>/fd/<fd>` where one is set (cli.ts: Deno's, ~2 us
  // against ~9 us for Deno's `fstatSync`), which is the descriptor's `fstat`.
  const size = openFileSize(fd);
  if (size < 0) return true;
  if (size > st.lim.maxFileBytes) {
    st.oversized++;
    return true;
  }
  if (st.bytes + size > st.lim.scanBudget) {
    st.outOfBudget = true;
    return false;
  }
  const data = st.scanner.reserve(size);
  let got = 0;
  while (got < size) {
    const n = fs.readSync(fd, data, got, size - got, got);
    if (n === 0) break;
    got += n;
  }
  st.files++;
  st.bytes += got;
  return searchData(st, redactData(st, got), path);
}

function globFilter(glob: CompiledGlob | undefined, rel: string, name: string): boolean {
  if (!glob) return true;
  return glob.basenameOnly ? glob.matchesPath(name) : glob.matchesPath(rel);
}

/**
 * Run `files_search`.
 *
 * @example
 * ```ts
 * import { runFilesSearch } from "./search.ts";
 * // const r = await runFilesSearch({ query: "TODO", glob: "*.ts" }, env);
 * ```
 */
export async function runFilesSearch(
  args: FilesSearchArgs,
  env: BuiltinEnv,
  limits: Partial<SearchLimits> = {},
): Promise<ToolResult> {
  const lim: SearchLimits = {
    maxFileBytes: NATIVE_LIMITS.searchMaxFileBytes,
    scanBudget: NATIVE_LIMITS.searchScanBudget,
    scanEntries: NATIVE_LIMITS.scanEntries,
    ...limits,
  };
  return await withByteScanner((scanner) => search(args, env, lim, scanner));
}

async function search(
  args: FilesSearchArgs,
  env: BuiltinEnv,
  lim: SearchLimits,
  scanner: ByteScanner,
): Promise<ToolResult> {
  const query = [{ bytes: Buffer.from(args.query, "utf8"), mask: null }];
  const literals = withProtectedLiterals(query, env.protect);
  scanner.setLiterals(literals);
  const glob = args.glob === undefined
    ? undefined
    : protectGlob(compileGlob(args.glob, "glob"), env.protect);
  const r = resolveLogicalPath(env, args.path, { allowDotRoot: true });
  const st: SearchState = {
    scanner,
    protect: env.protect,
    protectFrom: literals.length > 1 ? 1 : -1,
    max: args.maxMatches ?? NATIVE_LIMITS.searchDefaultMatches,
    lim,
    matches: [],
    budgetBytes: LIMITS.maxJsonBytes - 4096,
    files: 0,
    bytes: 0,
    oversized: 0,
    binary: 0,
    full: false,
    outOfBudget: false,
  };
  const scanned = await scan(st, env, r, glob);
  return searchResult(st, r, scanned);
}

/** What {@linkcode scan} reports besides the matches in the state. */
interface Scanned {
  truncated: boolean;
  warnings: string[];
}

/** Search the one file `r` names, or traverse the folder it names. */
async function scan(
  st: SearchState,
  env: BuiltinEnv,
  r: ResolvedPath,
  glob: CompiledGlob | undefined,
): Promise<Scanned> {
  // A single file is looked up and searched inside one sandbox; anything else traverses.
  const single = r.components.length === 0 ? undefined : await withSandbox(r, env, (box) => {
    if (box.kindOf(r.components, r.path) !== "file") return undefined;
    const f = box.openFile(r.components, r.path);
    try {
      return searchFd(st, f.fd, r.path);
    } finally {
      fs.closeSync(f.fd);
    }
  });
  if (single !== undefined) return { truncated: !single, warnings: [] };
  const out = await traverse(env, r, { depth: 256, scanEntries: st.lim.scanEntries }, (e, box) => {
    if (e.kind !== "file" || !globFilter(glob, e.rel, e.name)) return;
    const fd = box.childFile(e.dir, e.name, false);
    if (fd === null) return;
    try {
      if (!searchFd(st, fd, e.path)) return "stop";
    } finally {
      fs.closeSync(fd);
    }
  });
  return { truncated: out.truncated, warnings: out.warnings };
}

/** The tool's JSON result from the finished state. */
function searchResult(st: SearchState, r: ResolvedPath, scanned: Scanned): ToolResult {
  const warnings = scanned.warnings;
  const { lim } = st;
  if (st.full) warnings.unshift(`only the first ${st.matches.length} matches are returned`);
  if (st.outOfBudget) warnings.unshift(`the scan budget of ${lim.scanBudget} bytes was used up`);
  if (st.oversized > 0) {
    warnings.push(`${st.oversized} files over ${lim.maxFileBytes} bytes were skipped`);
  }
  if (st.binary > 0) warnings.push(`${st.binary} binary files were skipped`);
  return jsonResult({
    ...ownership(r),
    matches: st.matches,
    filesScanned: st.files,
    bytesScanned: st.bytes,
    skipped: { oversized: st.oversized, binary: st.binary },
    truncated: scanned.truncated || st.full || st.outOfBudget,
    warnings,
  });
}
