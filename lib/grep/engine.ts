/**
 * The grep engine: search one file or a folder tree inside a {@linkcode Sandbox} with
 * agent-facing bounds (10,000 traversed entries, 8 MiB per file, 64 MiB searched,
 * 512 KiB of JSON result). Hitting a bound, or skipping an oversized file, sets
 * `truncated`; a folder with more than 10,000 entries is an error. The benchmark lifts
 * the bounds through `limits`.
 *
 * @module
 */

import { jsonBytes } from "../results/json_text.ts";
import fs from "node:fs";
import type { DirHandle, Sandbox } from "../paths/sandbox.ts";
import { DEFAULT_WALK_LIMITS, type WalkLimits, walkTree } from "../paths/walk.ts";
import { LIMITS } from "../results/types.ts";
import { childLogical } from "../paths/logical.ts";
import type { CompiledGlob } from "../glob/pattern.ts";
import { type ByteScanner, withByteScannerSync } from "./byte_scan.ts";
import type { GrepPattern } from "./regex.ts";
import { prepareScanner, searchBuffer } from "./search.ts";

/** Grep bounds: the traversal's (see walk.ts) plus file, total and result sizes. */
export interface GrepLimits extends WalkLimits {
  /** Largest file searched; larger files are skipped (truncated). Default 8 MiB. */
  maxFileBytes: number;
  /** Total bytes searched before stopping (truncated). Default 64 MiB. */
  maxTotalBytes: number;
  /** Largest compact JSON result in bytes, envelope included. Default 512 KiB. */
  maxResultBytes: number;
}

/** The agent-facing defaults. */
export const DEFAULT_GREP_LIMITS: GrepLimits = Object.freeze({
  ...DEFAULT_WALK_LIMITS,
  maxFileBytes: 8 * 1024 * 1024,
  maxTotalBytes: 64 * 1024 * 1024,
  maxResultBytes: LIMITS.maxJsonBytes,
});

/** One matching line. */
export interface GrepMatch {
  /** Logical path of the file (from the declaring Artifact). */
  path: string;
  /** 1-based line number. */
  line: number;
  /** The line without its terminator (cut at 4096 UTF-16 code units). */
  text: string;
}

/** What was searched. */
export type GrepTarget =
  | { kind: "file"; fd: number; logical: string; name: string }
  | {
    kind: "dir";
    box: Sandbox;
    dir: DirHandle;
    /** Logical path of the folder from the declaring Artifact (`.` for its root). */
    logical: string;
    /** Whether an entry (logical path from the declaring Artifact) may be searched. */
    admit?: (logical: string) => boolean;
  };

/** Options of {@linkcode grepTarget}. */
export interface GrepOptions {
  /** Filename filter: relative path, or basename for slash-free patterns and single files. */
  glob?: CompiledGlob;
  /** Bounds (defaults: {@linkcode DEFAULT_GREP_LIMITS}). */
  limits?: Partial<GrepLimits>;
  /** Bytes of the result envelope without matches (counted against `maxResultBytes`). */
  envelopeBytes?: number;
  /** Cancellation. */
  signal?: AbortSignal;
}

/** Grep outcome. */
export interface GrepOutcome {
  /** Matches in traversal order. */
  matches: GrepMatch[];
  /** A bound was hit or an oversized file skipped. */
  truncated: boolean;
  /** Files whose contents were searched (binary/invalid ones included). */
  filesSearched: number;
  /** Bytes read and searched. */
  bytesSearched: number;
}

interface State {
  scanner: ByteScanner;
  pattern: GrepPattern;
  lim: GrepLimits;
  out: GrepOutcome;
  budget: number;
  stop: boolean;
  signal?: AbortSignal;
}

/** Read a whole file (at most `cap + 1` bytes) into the scanner with positioned reads. */
function readFileInto(scanner: ByteScanner, fd: number, cap: number): number {
  const data = scanner.reserve(cap + 1);
  let n = 0;
  while (n <= cap) {
    const want = cap + 1 - n;
    const r = fs.readSync(fd, data, n, want, n);
    n += r;
    if (r < want) break; // a short read of a regular file is its end
  }
  return n;
}

/**
 * Search one open file. Traversals skip `fstat` (costly under Deno): the size comes from
 * reading at most `cap + 1` bytes with positioned reads, which also fail on FIFOs and
 * sockets, and the bytes read from an oversized file count toward the total bound.
 */
function searchFd(st: State, fd: number, logical: string): void {
  const remaining = st.lim.maxTotalBytes - st.out.bytesSearched;
  const cap = Math.min(st.lim.maxFileBytes, remaining);
  let n: number;
  try {
    n = readFileInto(st.scanner, fd, cap);
  } catch {
    return; // not readable as a regular file (e.g. a FIFO swapped in): skipped
  }
  if (n > cap) {
    st.out.truncated = true;
    if (cap < st.lim.maxFileBytes) {
      st.stop = true; // the total bound is reached
      return;
    }
    st.out.bytesSearched += cap; // an oversized file: skipped, but its read is counted
    if (st.out.bytesSearched >= st.lim.maxTotalBytes) st.stop = true;
    return;
  }
  st.out.filesSearched++;
  st.out.bytesSearched += n;
  const outcome = searchBuffer(st.scanner, n, st.pattern, (line, text) => {
    const m: GrepMatch = { path: logical, line, text };
    const bytes = jsonBytes(m) + (st.out.matches.length > 0 ? 1 : 0);
    if (bytes > st.budget) {
      st.out.truncated = true;
      return false;
    }
    st.budget -= bytes;
    st.out.matches.push(m);
    return true;
  });
  if (outcome === "stopped") st.stop = true;
}

function grepDir(st: State, t: Extract<GrepTarget, { kind: "dir" }>, glob?: CompiledGlob): void {
  const states = new Map<string, readonly number[]>();
  if (glob) states.set("", glob.start);
  const walked = walkTree(
    t.box,
    t.dir,
    t.logical,
    (e) => {
      const logical = childLogical(t.logical, e.rel);
      if (e.kind === "symlink" || e.kind === "other") return;
      if (t.admit && !t.admit(logical)) return "skip";
      const slash = e.rel.lastIndexOf("/");
      const parentRel = slash < 0 ? "" : e.rel.slice(0, slash);
      if (e.kind === "directory") {
        if (glob && !glob.basenameOnly) {
          const next = glob.step(states.get(parentRel) ?? [], e.name);
          if (next.length === 0) return "skip";
          states.set(e.rel, next);
        }
        return;
      }
      if (glob) {
        const ok = glob.basenameOnly
          ? glob.matchesPath(e.name)
          : glob.matchesFile(states.get(parentRel) ?? [], e.name);
        if (!ok) return;
      }
      const fd = t.box.childFile(e.dir, e.name, false);
      if (fd === null) return;
      try {
        searchFd(st, fd, logical);
      } finally {
        fs.closeSync(fd);
      }
      return st.stop ? "stop" : undefined;
    },
    st.lim,
    st.signal,
  );
  if (walked.truncated) st.out.truncated = true;
}

/**
 * Search a file or folder.
 *
 * @throws {import("../paths/sandbox.ts").TooManyEntriesError} for a folder with too many entries.
 * @example
 * ```ts
 * import { Sandbox } from "../paths/sandbox.ts";
 * import { compileGrepPattern } from "./regex.ts";
 * import { grepTarget } from "./engine.ts";
 * const box = Sandbox.open("/tmp");
 * const out = grepTarget({ kind: "dir", box, dir: box.root, logical: "." },
 *   compileGrepPattern("needle"));
 * box.close();
 * console.log(out.matches.length, out.truncated);
 * ```
 */
export function grepTarget(
  target: GrepTarget,
  pattern: GrepPattern,
  options: GrepOptions = {},
): GrepOutcome {
  return withByteScannerSync((scanner) => grepWith(scanner, target, pattern, options));
}

function grepWith(
  scanner: ByteScanner,
  target: GrepTarget,
  pattern: GrepPattern,
  options: GrepOptions,
): GrepOutcome {
  const lim = { ...DEFAULT_GREP_LIMITS, ...options.limits };
  prepareScanner(scanner, pattern);
  const st: State = {
    scanner,
    pattern,
    lim,
    out: { matches: [], truncated: false, filesSearched: 0, bytesSearched: 0 },
    budget: lim.maxResultBytes - (options.envelopeBytes ?? 0),
    stop: false,
    signal: options.signal,
  };
  if (target.kind === "file") {
    if (!options.glob || options.glob.matchesPath(target.name)) {
      searchFd(st, target.fd, target.logical);
    }
  } else {
    grepDir(st, target, options.glob);
  }
  return st.out;
}
