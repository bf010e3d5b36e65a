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

/** A set of NFA states (segment indexes); `accept` is `segments.length`. */
export type GlobState = readonly number[];

/** A compiled glob. */
export interface CompiledGlob {
  /** The start state (before any component). */
  readonly start: GlobState;
  /** States after consuming one folder name; empty means nothing below can match. */
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

function closure(segs: Seg[], states: Iterable<number>): number[] {
  const out = new Set<number>();
  for (let s of states) {
    out.add(s);
    while (s < segs.length && segs[s].star2) out.add(++s);
  }
  return [...out].sort((a, b) => a - b);
}

/**
 * Validate and compile a glob pattern.
 *
 * @throws {PatternError} for an invalid pattern.
 * @example
 * ```ts
 * import { compileGlob } from "./pattern.ts";
 * const g = compileGlob("**\/*.md");
 * g.matchesPath("docs/a.md"); // true
 * g.matchesPath("a.md"); // true
 * ```
 */
export function compileGlob(pattern: unknown, label?: string): CompiledGlob {
  const raw = validateGlobPattern(pattern, label);
  if (raw[raw.length - 1] === "**") raw.push("*");
  const segs: Seg[] = raw.map((s) =>
    s === "**" ? { star2: true } : { star2: false, match: compileSegment(s) }
  );
  const accept = segs.length;
  const start = closure(segs, [0]);
  const step = (state: GlobState, name: string): GlobState => {
    const next: number[] = [];
    for (const s of state) {
      if (s >= accept) continue;
      const seg = segs[s];
      if (seg.star2) next.push(s);
      else if (seg.match(name)) next.push(s + 1);
    }
    return next.length === 0 ? next : closure(segs, next);
  };
  const matchesFile = (state: GlobState, name: string): boolean => {
    for (const s of state) {
      if (s >= accept) continue;
      const seg = segs[s];
      if (!seg.star2 && s + 1 === accept && seg.match(name)) return true;
    }
    return false;
  };
  const matchesPath = (rel: string): boolean => {
    const parts = rel.split("/");
    let state: GlobState = start;
    for (let i = 0; i < parts.length - 1 && state.length > 0; i++) state = step(state, parts[i]);
    return matchesFile(state, parts[parts.length - 1]);
  };
  return { start, step, matchesFile, matchesPath, basenameOnly: raw.length === 1 };
}
