/**
 * Bounded, depth-first traversal beneath an open sandbox folder. Entries come in name
 * order per folder; folders are entered through their pinned parent descriptor and
 * symlinks are reported but never followed.
 *
 * {@linkcode walkTree} runs to the end synchronously; {@linkcode walkTreeAsync} gives the
 * event loop a turn whenever its {@linkcode TimeSlice} is used up, so a long search can be
 * cancelled through its AbortSignal and other calls keep being served.
 *
 * @module
 */

import { setImmediate } from "node:timers";
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
  /** The open folder containing it (valid until the visitor's action is settled). */
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

/** Longest run of synchronous work between two turns of the event loop, in ms. */
export const SLICE_MS = 20;

/**
 * Cooperative time slicing for long synchronous work: `expired()` reads the clock,
 * `pause()` yields one macrotask (timers, I/O and aborts run) and then throws
 * {@linkcode CancelledError} if the signal has fired.
 *
 * @example
 * ```ts
 * import { TimeSlice } from "./walk.ts";
 * const slice = new TimeSlice(undefined);
 * for (let i = 0; i < 1e6; i++) {
 *   if ((i & 1023) === 0 && slice.expired()) await slice.pause();
 * }
 * ```
 */
export class TimeSlice {
  #signal: AbortSignal | undefined;
  #ms: number;
  #start = performance.now();

  /** A slice of `ms` milliseconds, cancelled by `signal`. */
  constructor(signal: AbortSignal | undefined, ms: number = SLICE_MS) {
    this.#signal = signal;
    this.#ms = ms;
  }

  /** Whether the current slice is used up (one clock read: call it every so often). */
  expired(): boolean {
    return performance.now() - this.#start >= this.#ms;
  }

  /** Throw {@linkcode CancelledError} when the signal has fired. */
  check(): void {
    if (this.#signal?.aborted) throw new CancelledError();
  }

  /**
   * Let the event loop run, then start a new slice.
   *
   * @throws {CancelledError} when the signal fired meanwhile.
   */
  async pause(): Promise<void> {
    await new Promise<void>((resolve) => setImmediate(resolve));
    this.check();
    this.#start = performance.now();
  }
}

interface Frame {
  dir: DirHandle;
  entries: DirEntry[];
  index: number;
  rel: string;
}

/** Entries between two clock reads of {@linkcode walkTreeAsync}. */
const ENTRIES_PER_CHECK = 64;

/**
 * The traversal as a pull cursor: `next()` returns each entry in turn; `enter()` right
 * after a folder entry makes its entries come next.
 */
class TreeCursor {
  readonly outcome: WalkOutcome = { truncated: false, stopped: false, visited: 0 };
  #stack: Frame[] = [];
  #box: Sandbox;
  #start: DirHandle;
  #startLogical: string;
  #lim: WalkLimits;
  #signal: AbortSignal | undefined;
  #last: WalkEntry | null = null;

  constructor(
    box: Sandbox,
    start: DirHandle,
    startLogical: string,
    lim: WalkLimits,
    signal: AbortSignal | undefined,
  ) {
    this.#box = box;
    this.#start = start;
    this.#startLogical = startLogical;
    this.#lim = lim;
    this.#signal = signal;
    const entries = box.readDir(start, startLogical, lim.maxDirEntries);
    this.#stack.push({ dir: start, entries, index: 0, rel: "" });
  }

  /** The next entry, or null at the end or at the entry bound (then `truncated`). */
  next(): WalkEntry | null {
    const stack = this.#stack;
    while (stack.length > 0) {
      const top = stack[stack.length - 1];
      if (top.index >= top.entries.length) {
        stack.pop();
        if (top.dir !== this.#start) this.#box.closeDir(top.dir);
        continue;
      }
      const entry = top.entries[top.index++];
      const outcome = this.outcome;
      if (outcome.visited >= this.#lim.maxEntries) {
        outcome.truncated = true;
        return null;
      }
      outcome.visited++;
      if ((outcome.visited & 255) === 0 && this.#signal?.aborted) throw new CancelledError();
      const rel = top.rel === "" ? entry.name : `${top.rel}/${entry.name}`;
      this.#last = { ...entry, rel, dir: top.dir };
      return this.#last;
    }
    return null;
  }

  /** Descend into the folder `next()` just returned (its parent must still be on top). */
  enter(): void {
    const entry = this.#last;
    if (entry === null || entry.kind !== "directory") return;
    this.#last = null;
    const stack = this.#stack;
    if (stack.length >= this.#lim.maxDepth) {
      this.outcome.truncated = true;
      return;
    }
    const child = this.#box.childDir(entry.dir, entry.name);
    if (child === null) return;
    let entries: DirEntry[];
    try {
      entries = this.#box.readDir(
        child,
        childLogical(this.#startLogical, entry.rel),
        this.#lim.maxDirEntries,
      );
    } catch (e) {
      this.#box.closeDir(child);
      if (e instanceof TooManyEntriesError) throw e;
      return; // unreadable folder: skipped
    }
    stack.push({ dir: child, entries, index: 0, rel: entry.rel });
  }

  /** Close every folder this cursor opened. */
  close(): void {
    for (const f of this.#stack) if (f.dir !== this.#start) this.#box.closeDir(f.dir);
    this.#stack = [];
  }
}

/** Apply a visitor's action to the cursor; true when the walk must end. */
function settle(cursor: TreeCursor, entry: WalkEntry, action: WalkAction): boolean {
  if (action === "stop") {
    cursor.outcome.stopped = true;
    return true;
  }
  if (entry.kind === "directory" && action !== "skip") cursor.enter();
  return false;
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
  const cursor = new TreeCursor(box, start, startLogical, lim, signal);
  try {
    for (let e = cursor.next(); e !== null; e = cursor.next()) {
      if (settle(cursor, e, visit(e))) break;
    }
  } finally {
    cursor.close();
  }
  return cursor.outcome;
}

/**
 * {@linkcode walkTree} that yields to the event loop whenever `slice` is used up (checked
 * every 64 entries and after every visitor that returned a promise), so `signal` — the
 * slice's — can cancel it. A visitor may return a promise (e.g. a long file search that
 * pauses itself); the entry's folder stays open until it settles.
 *
 * @throws {TooManyEntriesError} when any folder holds more than `maxDirEntries` entries.
 * @throws {CancelledError} when the slice's signal aborts.
 * @example
 * ```ts
 * import { Sandbox } from "./sandbox.ts";
 * import { TimeSlice, walkTreeAsync } from "./walk.ts";
 * const box = Sandbox.open("/tmp");
 * const out = await walkTreeAsync(box, box.root, ".", () => "skip", {}, new TimeSlice(undefined));
 * box.close();
 * console.log(out.visited);
 * ```
 */
export async function walkTreeAsync(
  box: Sandbox,
  start: DirHandle,
  startLogical: string,
  visit: (entry: WalkEntry) => WalkAction | Promise<WalkAction>,
  limits: Partial<WalkLimits>,
  slice: TimeSlice,
): Promise<WalkOutcome> {
  const lim = { ...DEFAULT_WALK_LIMITS, ...limits };
  slice.check();
  const cursor = new TreeCursor(box, start, startLogical, lim, undefined);
  try {
    let sinceCheck = 0;
    for (let e = cursor.next(); e !== null; e = cursor.next()) {
      const action = visit(e);
      if (action instanceof Promise) {
        if (settle(cursor, e, await action)) break;
        sinceCheck = ENTRIES_PER_CHECK;
      } else if (settle(cursor, e, action)) break;
      if (++sinceCheck >= ENTRIES_PER_CHECK) {
        sinceCheck = 0;
        if (slice.expired()) await slice.pause();
      }
    }
  } finally {
    cursor.close();
  }
  return cursor.outcome;
}
