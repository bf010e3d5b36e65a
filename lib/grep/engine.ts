/**
 * The grep engine: search one file or a folder tree inside a {@linkcode Sandbox} with
 * agent-facing bounds (10,000 traversed entries, 8 MiB per file, 64 MiB searched,
 * 512 KiB of JSON result). Hitting a bound, or skipping an oversized file, sets
 * `truncated`; a folder with more than 10,000 entries is an error. A skipped file is not
 * searched, so it does not count toward the 64 MiB. The benchmark lifts the bounds
 * through `limits`.
 *
 * A search gives the event loop a turn about every 20 ms — between files and inside a
 * large file — so its AbortSignal can cancel it and other calls are served meanwhile.
 *
 * @module
 */

import { jsonBytes } from "../results/json_text.ts";
import fs from "node:fs";
import type { DirHandle, Sandbox } from "../paths/sandbox.ts";
import {
  DEFAULT_WALK_LIMITS,
  TimeSlice,
  type WalkAction,
  type WalkLimits,
  walkTreeAsync,
} from "../paths/walk.ts";
import { LIMITS } from "../results/types.ts";
import { childLogical } from "../paths/logical.ts";
import type { CompiledGlob } from "../glob/pattern.ts";
import { type ByteScanner, withByteScanner } from "./byte_scan.ts";
import type { GrepPattern } from "./regex.ts";
import type { Protector } from "../redact/types.ts";
import { redactScanned, withProtectedLiterals } from "../redact/scan.ts";
import {
  type BufferOutcome,
  type MatchSink,
  prepareScanner,
  searchBuffer,
  type SearchCursor,
  startCursor,
} from "./search.ts";

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
  /** Cancellation (checked whenever the search gives the event loop a turn). */
  signal?: AbortSignal;
  /**
   * Protected values: each file is searched as it would be handed out, its values
   * replaced (line breaks kept), so no match can overlap one. Default none.
   */
  protect?: Protector;
}

/** Grep outcome. */
export interface GrepOutcome {
  /** Matches in traversal order. */
  matches: GrepMatch[];
  /** A bound was hit or an oversized file skipped. */
  truncated: boolean;
  /** Files whose contents were searched (binary/invalid ones included). */
  filesSearched: number;
  /** Bytes searched (skipped files are not counted). */
  bytesSearched: number;
}

interface State {
  scanner: ByteScanner;
  protect?: Protector;
  /** Index of the first protected-value literal in the scanner (-1: searched in JS). */
  protectFrom: number;
  pattern: GrepPattern;
  lim: GrepLimits;
  out: GrepOutcome;
  budget: number;
  stop: boolean;
  slice: TimeSlice;
  /** Bytes searched since the clock was last read between files. */
  unchecked: number;
}

/**
 * Bytes of a file's first read (a file that fills it is measured before reading on), and
 * of searching between two looks at the clock between files.
 */
const PROBE_BYTES = 64 * 1024;

/**
 * Read a whole file into the scanner with positioned reads. Returns its length when it
 * is at most `cap` bytes, otherwise a number above `cap`: its measured size, or `cap + 1`
 * when it grew while being read. `fstat` is costly under Deno, so only a file that fills
 * the first read (64 KiB, or `cap + 1` when less) is measured, and a file over `cap` is
 * never read past that first read.
 */
function readFileInto(scanner: ByteScanner, fd: number, cap: number): number {
  const probe = Math.min(cap + 1, PROBE_BYTES);
  const first = fs.readSync(fd, scanner.reserve(probe), 0, probe, 0);
  if (first < probe) return first; // a short read of a regular file is its end
  const size = fs.fstatSync(fd).size;
  if (size > cap) return size;
  const all = scanner.reserve(cap + 1);
  let n = first;
  while (n <= cap) {
    const want = cap + 1 - n;
    const r = fs.readSync(fd, all, n, want, n);
    n += r;
    if (r < want) break;
  }
  return n;
}

/**
 * Search one open file. Traversals skip `fstat` for small files (see `readFileInto`),
 * whose positioned reads also fail on FIFOs and sockets. A file over the per-file bound
 * is skipped (truncated) and not counted; one that fits it but not what is left of the
 * total bound ends the search (truncated).
 */
function searchFd(st: State, fd: number, logical: string): void | Promise<void> {
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
    // Past the per-file bound: skipped, not searched. Otherwise the total bound is reached.
    if (n <= st.lim.maxFileBytes) st.stop = true;
    return;
  }
  st.out.filesSearched++;
  st.out.bytesSearched += n;
  st.unchecked += n;
  n = redactData(st, n);
  const sink: MatchSink = (line, text) => {
    const m: GrepMatch = { path: logical, line, text };
    const bytes = jsonBytes(m) + (st.out.matches.length > 0 ? 1 : 0);
    if (bytes > st.budget) {
      st.out.truncated = true;
      return false;
    }
    st.budget -= bytes;
    st.out.matches.push(m);
    return true;
  };
  const cursor = startCursor();
  const outcome = searchBuffer(st.scanner, n, st.pattern, sink, cursor, st.slice);
  if (outcome === "paused") return resumeSearch(st, n, sink, cursor);
  if (outcome === "stopped") st.stop = true;
}

/** Replace the protected values in the scanner's first `n` bytes; returns the new length. */
function redactData(st: State, n: number): number {
  return redactScanned(st.scanner, st.protect, st.protectFrom, n);
}

/** Go on with a paused search of the scanner's data, pausing in turns. */
async function resumeSearch(
  st: State,
  n: number,
  sink: MatchSink,
  cursor: SearchCursor,
): Promise<void> {
  let outcome: BufferOutcome = "paused";
  while (outcome === "paused") {
    await st.slice.pause();
    outcome = searchBuffer(st.scanner, n, st.pattern, sink, cursor, st.slice);
  }
  if (outcome === "stopped") st.stop = true;
}

async function grepDir(
  st: State,
  t: Extract<GrepTarget, { kind: "dir" }>,
  glob?: CompiledGlob,
): Promise<void> {
  const states = new Map<string, readonly number[]>();
  if (glob) states.set("", glob.start);
  const next = (): WalkAction => (st.stop ? "stop" : undefined);
  const walked = await walkTreeAsync(
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
      let searched: void | Promise<void>;
      try {
        searched = searchFd(st, fd, logical);
      } finally {
        fs.closeSync(fd); // the file is read whole before its search starts or pauses
      }
      if (searched) return searched.then(next);
      // Searches take long even below the walk's entry stride: after every 64 KiB
      // searched, look at the clock.
      if (st.unchecked >= PROBE_BYTES) {
        st.unchecked = 0;
        if (st.slice.expired()) return st.slice.pause().then(next);
      }
      return next();
    },
    st.lim,
    st.slice,
  );
  if (walked.truncated) st.out.truncated = true;
}

/**
 * Search a file or folder. The target (its descriptor or folder) must stay open until the
 * promise settles.
 *
 * @throws {import("../paths/sandbox.ts").TooManyEntriesError} for a folder with too many entries.
 * @throws {import("../paths/walk.ts").CancelledError} when `signal` aborts.
 * @example
 * ```ts
 * import { Sandbox } from "../paths/sandbox.ts";
 * import { compileGrepPattern } from "./regex.ts";
 * import { grepTarget } from "./engine.ts";
 * const box = Sandbox.open("/tmp");
 * const out = await grepTarget({ kind: "dir", box, dir: box.root, logical: "." },
 *   compileGrepPattern("needle"));
 * box.close();
 * console.log(out.matches.length, out.truncated);
 * ```
 */
export function grepTarget(
  target: GrepTarget,
  pattern: GrepPattern,
  options: GrepOptions = {},
): Promise<GrepOutcome> {
  return withByteScanner((scanner) => grepWith(scanner, target, pattern, options));
}

async function grepWith(
  scanner: ByteScanner,
  target: GrepTarget,
  pattern: GrepPattern,
  options: GrepOptions,
): Promise<GrepOutcome> {
  const lim = { ...DEFAULT_GREP_LIMITS, ...options.limits };
  prepareScanner(scanner, pattern);
  // The protected values' forms go after the pattern's literals (the search reads only those).
  const own = pattern.literals ?? [];
  const literals = withProtectedLiterals(own, options.protect);
  if (literals.length > own.length) scanner.setLiterals(literals);
  const st: State = {
    scanner,
    protect: options.protect,
    protectFrom: literals.length > own.length ? own.length : -1,
    pattern,
    lim,
    out: { matches: [], truncated: false, filesSearched: 0, bytesSearched: 0 },
    budget: lim.maxResultBytes - (options.envelopeBytes ?? 0),
    stop: false,
    slice: new TimeSlice(options.signal),
    unchecked: 0,
  };
  st.slice.check();
  if (target.kind === "file") {
    if (!options.glob || options.glob.matchesPath(target.name)) {
      await searchFd(st, target.fd, target.logical);
    }
  } else {
    await grepDir(st, target, options.glob);
  }
  return st.out;
}
