/**
 * The glob engine: walk a sandbox folder and select regular files whose relative path
 * matches a compiled glob, pruning folders no match can lie beneath. Names only — file
 * contents are never opened. Symlinks and special files are skipped; symlinked folders
 * are never entered.
 *
 * @module
 */

import { jsonBytes } from "../results/json_text.ts";
import type { DirHandle, Sandbox } from "../paths/sandbox.ts";
import { DEFAULT_WALK_LIMITS, TimeSlice, type WalkLimits, walkTreeAsync } from "../paths/walk.ts";
import { LIMITS } from "../results/types.ts";
import { childLogical } from "../paths/logical.ts";
import type { CompiledGlob, GlobState } from "./pattern.ts";

/** Glob bounds: the traversal's (see walk.ts) plus the result size. */
export interface GlobLimits extends WalkLimits {
  /** Largest compact JSON result in bytes, envelope included. Default 512 KiB. */
  maxResultBytes: number;
}

/** The agent-facing defaults. */
export const DEFAULT_GLOB_LIMITS: GlobLimits = Object.freeze({
  ...DEFAULT_WALK_LIMITS,
  maxResultBytes: LIMITS.maxJsonBytes,
});

/** Options of {@linkcode globFiles}. */
export interface GlobOptions {
  /** Bounds (defaults: {@linkcode DEFAULT_GLOB_LIMITS}). */
  limits?: Partial<GlobLimits>;
  /** Whether an entry (logical path from the declaring Artifact) may be visited. */
  admit?: (logical: string) => boolean;
  /** Bytes of the result envelope without files (counted against `maxResultBytes`). */
  envelopeBytes?: number;
  /** Cancellation (checked whenever the walk gives the event loop a turn). */
  signal?: AbortSignal;
}

/** Glob outcome. */
export interface GlobOutcome {
  /** Matching files as logical paths from the declaring Artifact, sorted. */
  files: string[];
  /** A bound was hit. */
  truncated: boolean;
}

/**
 * Select files beneath `dir` (logical path `logical`) whose path relative to it matches.
 * Folders nothing below can match are never read. The walk yields to the event loop
 * every 20 ms or so; `dir` must stay open until the promise settles.
 *
 * @throws {import("../paths/sandbox.ts").TooManyEntriesError} for an oversized folder.
 * @throws {import("../paths/walk.ts").CancelledError} when `signal` aborts.
 * @example
 * ```ts
 * import { Sandbox } from "../paths/sandbox.ts";
 * import { compileGlob } from "./pattern.ts";
 * import { globFiles } from "./engine.ts";
 * const box = Sandbox.open("/tmp");
 * const out = await globFiles(box, box.root, ".", compileGlob("*.txt"));
 * box.close();
 * console.log(out.files);
 * ```
 */
export async function globFiles(
  box: Sandbox,
  dir: DirHandle,
  logical: string,
  glob: CompiledGlob,
  options: GlobOptions = {},
): Promise<GlobOutcome> {
  const lim = { ...DEFAULT_GLOB_LIMITS, ...options.limits };
  const states = new Map<string, GlobState>([["", glob.start]]);
  const files: string[] = [];
  let budget = lim.maxResultBytes - (options.envelopeBytes ?? 0);
  let truncated = false;
  const walked = await walkTreeAsync(
    box,
    dir,
    logical,
    (e) => {
      if (e.kind === "symlink" || e.kind === "other") return;
      const path = childLogical(logical, e.rel);
      if (options.admit && !options.admit(path)) return "skip";
      const slash = e.rel.lastIndexOf("/");
      const state = states.get(slash < 0 ? "" : e.rel.slice(0, slash)) ?? [];
      if (e.kind === "directory") {
        const next = glob.step(state, e.name);
        if (next.length === 0) return "skip";
        states.set(e.rel, next);
        return;
      }
      if (!glob.matchesFile(state, e.name)) return;
      const cost = jsonBytes(path) + (files.length > 0 ? 1 : 0);
      if (cost > budget) {
        truncated = true;
        return "stop";
      }
      budget -= cost;
      files.push(path);
    },
    lim,
    new TimeSlice(options.signal),
  );
  files.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return { files, truncated: truncated || walked.truncated };
}
