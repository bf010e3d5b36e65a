/**
 * Glob patterns for the glob built-in and grep's filename filter: `/`-separated segments
 * where `**` (a whole segment) spans any number of folders and other segments match one
 * component (see `segment.ts`). Patterns are relative: nonempty, at most 4096 UTF-16
 * code units, no leading `/`, backslash, colon, NUL, or empty/`.`/`..` segments.
 *
 * Matching is an NFA over segments, so a traversal can prune folders that no match can
 * lie beneath. A trailing `**` matches one or more components (`src/**` matches the
 * files under `src`, not a file named `src`).
 *
 * @module
 */

import { ToolhostError } from "../errors/errors.ts";
import { compileSegment, type SegmentMatcher } from "./segment.ts";

/** Longest pattern, in UTF-16 code units. */
export const MAX_PATTERN_UNITS = 4096;

/** A glob or regex pattern argument is invalid. */
export class PatternError extends ToolhostError {
  /** Create a pattern error (value-free message). */
  constructor(message: string) {
    super("INVALID_ARGUMENTS", message);
  }
}

/**
 * A set of NFA states: ascending indexes of the segment to match next (after `**`
 * collapsing). Empty means nothing can match.
 */
export type GlobState = readonly number[];

/** A compiled glob. */
export interface CompiledGlob {
  /** The start state (before any component). */
  readonly start: GlobState;
  /**
   * States after consuming one folder name; empty means nothing below can match (the
   * folder need not be read).
   */
  step(state: GlobState, name: string): GlobState;
  /** Whether a file named `name` in a folder at `state` matches. */
  matchesFile(state: GlobState, name: string): boolean;
  /** Whether a `/`-separated relative path matches. */
  matchesPath(rel: string): boolean;
  /** True when the pattern has no `/` (grep's filter then matches basenames). */
  readonly basenameOnly: boolean;
}

/**
 * Check a glob pattern's form.
 *
 * @throws {PatternError} naming the rule that failed (never the pattern).
 * @example
 * ```ts
 * import { validateGlobPattern } from "./pattern.ts";
 * validateGlobPattern("src/**\/*.ts"); // ["src", "**", "*.ts"]
 * ```
 */
export function validateGlobPattern(pattern: unknown, label = "glob pattern"): string[] {
  if (typeof pattern !== "string") throw new PatternError(`The ${label} must be a string.`);
  if (pattern.length === 0) throw new PatternError(`The ${label} is empty.`);
  if (pattern.length > MAX_PATTERN_UNITS) {
    throw new PatternError(`The ${label} is longer than 4096 characters.`);
  }
  if (pattern.includes("\0")) throw new PatternError(`The ${label} contains a NUL character.`);
  if (pattern.includes("\\")) throw new PatternError(`The ${label} contains a backslash.`);
  if (pattern.includes(":")) throw new PatternError(`The ${label} contains a colon.`);
  if (pattern.startsWith("/")) {
    throw new PatternError(`The ${label} must be relative (no leading \`/\`).`);
  }
  const segs = pattern.split("/");
  for (const s of segs) {
    if (s === "") throw new PatternError(`The ${label} has an empty path component.`);
    if (s === "." || s === "..") {
      throw new PatternError(`The ${label} has a \`${s}\` component, which is not allowed.`);
    }
  }
  return segs;
}

type Seg = { star2: true } | { star2: false; match: SegmentMatcher };

/**
 * The pattern's segments with each run of consecutive `**` collapsed into one (`**\/**`
 * spans exactly what `**` does), so no run of `**` states is longer than one.
 */
function collapseStars(raw: readonly string[]): string[] {
  const out: string[] = [];
  for (const s of raw) if (s !== "**" || out[out.length - 1] !== "**") out.push(s);
  return out;
}

/**
 * The ε-closure of an ascending state list (each `**` state also stands before the next
 * segment), ascending and without duplicates, in time linear in its size.
 */
function closure(segs: readonly Seg[], states: readonly number[]): number[] {
  const out: number[] = [];
  let hi = -1; // the highest state added; every state up to the end of its run is in
  for (let s of states) {
    if (s <= hi) continue;
    out.push(s);
    while (s < segs.length && segs[s].star2) out.push(++s);
    hi = s;
  }
  return out;
}

/**
 * Validate and compile a glob pattern.
 *
 * States are ascending segment indexes. A folder only leads to states that still have
 * segments to match beneath it (a folder matching the last segment is a dead end), so an
 * empty step means nothing below can match and the folder is never read.
 *
 * @throws {PatternError} for an invalid pattern.
 * @example
 * ```ts
 * import { compileGlob } from "./pattern.ts";
 * const g = compileGlob("**\/*.md");
 * g.matchesPath("docs/a.md"); // true
 * g.matchesPath("a.md"); // true
 * g.step(compileGlob("*").start, "docs"); // []: nothing below `docs` can match `*`
 * ```
 */
export function compileGlob(pattern: unknown, label?: string): CompiledGlob {
  const raw = validateGlobPattern(pattern, label);
  if (raw[raw.length - 1] === "**") raw.push("*");
  const basenameOnly = raw.length === 1;
  const segs: Seg[] = collapseStars(raw).map((s) =>
    s === "**" ? { star2: true } : { star2: false, match: compileSegment(s) }
  );
  const last = segs.length - 1; // never `**`: a trailing one is followed by `*`
  const start = closure(segs, [0]);
  const step = (state: GlobState, name: string): GlobState => {
    const next: number[] = [];
    for (const s of state) {
      const seg = segs[s];
      if (seg.star2) next.push(s);
      else if (s < last && seg.match(name)) next.push(s + 1);
    }
    return next.length === 0 ? next : closure(segs, next);
  };
  const matchesFile = (state: GlobState, name: string): boolean => {
    // States are ascending and the last segment is the highest, so it comes last.
    const s = state[state.length - 1];
    return s === last && (segs[s] as Extract<Seg, { star2: false }>).match(name);
  };
  const matchesPath = (rel: string): boolean => {
    const parts = rel.split("/");
    let state: GlobState = start;
    for (let i = 0; i < parts.length - 1 && state.length > 0; i++) state = step(state, parts[i]);
    return matchesFile(state, parts[parts.length - 1]);
  };
  return { start, step, matchesFile, matchesPath, basenameOnly };
}
