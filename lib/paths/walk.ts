/**
 * Bounded, depth-first traversal beneath an open sandbox folder. Entries come in name
 * order per folder; folders are entered through their pinned parent descriptor and
 * symlinks are reported but never followed.
 *
 * @module
 */

import { ToolhostError } from "../errors/errors.ts";
import { type DirEntry, type DirHandle, type Sandbox, TooManyEntriesError } from "./sandbox.ts";
import { childLogical } from "./logical.ts";

/** Traversal bounds. */
export interface WalkLimits {
  /** Entries visited before the walk stops with `truncated`. Default 10,000. */
  maxEntries: number;
  /** Entries one folder may hold; more is an error. Default 10,000. */
  maxDirEntries: number;
  /** Folders held open at once (nesting depth); deeper folders set `truncated`. Default 256. */
  maxDepth: number;
}

/** The default agent-facing traversal bounds. */
export const DEFAULT_WALK_LIMITS: WalkLimits = Object.freeze({
  maxEntries: 10_000,
  maxDirEntries: 10_000,
  maxDepth: 256,
});

/** One visited entry. */
export interface WalkEntry extends DirEntry {
  /** Path relative to the walk's start, `/`-separated. */
  rel: string;
  /** The open folder containing it (valid during the callback only). */
  dir: DirHandle;
}

/** What the visitor wants next: skip a folder's contents, stop, or carry on. */
export type WalkAction = "skip" | "stop" | void;

/** Outcome of a walk. */
export interface WalkOutcome {
  /** A bound stopped the walk early. */
  truncated: boolean;
  /** The visitor asked to stop. */
  stopped: boolean;
  /** Entries visited. */
  visited: number;
}

/** Raised when the call's AbortSignal fires during a long operation. */
export class CancelledError extends ToolhostError {
  /** Create a cancellation error. */
  constructor() {
    super("TOOL_ERROR", "The call was cancelled.");
  }
}

interface Frame {
  dir: DirHandle;
  entries: DirEntry[];
  index: number;
  rel: string;
}

/**
 * Walk beneath `start` (which stays owned by the caller). The visitor sees every entry;
 * returning `"skip"` for a folder keeps the walk out of it, `"stop"` ends the walk.
 *
 * @throws {TooManyEntriesError} when any folder holds more than `maxDirEntries` entries.
 * @throws {CancelledError} when `signal` aborts.
 * @example
 * ```ts
 * import { Sandbox } from "./sandbox.ts";
 * import { walkTree } from "./walk.ts";
 * const box = Sandbox.open("/tmp");
 * const out = walkTree(box, box.root, ".", (e) => (e.kind === "directory" ? "skip" : undefined));
 * box.close();
 * console.log(out.truncated);
 * ```
 */
export function walkTree(
  box: Sandbox,
  start: DirHandle,
  startLogical: string,
  visit: (entry: WalkEntry) => WalkAction,
  limits: Partial<WalkLimits> = {},
  signal?: AbortSignal,
): WalkOutcome {
  const lim = { ...DEFAULT_WALK_LIMITS, ...limits };
  const stack: Frame[] = [];
  const outcome: WalkOutcome = { truncated: false, stopped: false, visited: 0 };
  try {
    stack.push({
      dir: start,
      entries: box.readDir(start, startLogical, lim.maxDirEntries),
      index: 0,
      rel: "",
    });
    while (stack.length > 0) {
      const top = stack[stack.length - 1];
      if (top.index >= top.entries.length) {
        stack.pop();
        if (top.dir !== start) box.closeDir(top.dir);
        continue;
      }
      const entry = top.entries[top.index++];
      if (outcome.visited >= lim.maxEntries) {
        outcome.truncated = true;
        break;
      }
      outcome.visited++;
      if ((outcome.visited & 255) === 0 && signal?.aborted) throw new CancelledError();
      const rel = top.rel === "" ? entry.name : `${top.rel}/${entry.name}`;
      const action = visit({ ...entry, rel, dir: top.dir });
      if (action === "stop") {
        outcome.stopped = true;
        break;
      }
      if (entry.kind !== "directory" || action === "skip") continue;
      if (stack.length >= lim.maxDepth) {
        outcome.truncated = true;
        continue;
      }
      const child = box.childDir(top.dir, entry.name);
      if (child === null) continue;
      let entries: DirEntry[];
      try {
        entries = box.readDir(child, childLogical(startLogical, rel), lim.maxDirEntries);
      } catch (e) {
        box.closeDir(child);
        if (e instanceof TooManyEntriesError) throw e;
        continue; // unreadable folder: skipped
      }
      stack.push({ dir: child, entries, index: 0, rel });
    }
  } finally {
    for (const f of stack) if (f.dir !== start) box.closeDir(f.dir);
  }
  return outcome;
}
