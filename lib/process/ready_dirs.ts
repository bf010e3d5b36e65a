/**
 * Call directories made ahead: after a call's tool has been handed its input (the main
 * thread then only waits for it), the next call's private directories under the same
 * state directory are made, so that a call that follows — back to back, or as the next
 * of a burst — takes them instead of making its own before its spawn (three `mkdir`s and
 * the owner record: 0.2–0.5 ms on a quiet bench VM, about 1 ms under I/O load).
 *
 * Such directories are exactly what `createCallDirs` makes for a call (lib/process/
 * call_dirs.ts): private (0700), exclusively created, with this process as their owner,
 * so `toolhost sweep` removes them if this process dies. No process is admitted to them
 * and none can run in them until a call takes them; each serves one call.
 *
 * Bounds: one set per state directory and `max` per owner (a pool), 16 in the whole
 * process; a set untaken for `idleMs` is removed; `close()` removes every set, confirmed.
 *
 * @module
 */

import { readdirSync } from "node:fs";
import { setImmediate } from "node:timers";
import { type CallDirs, createCallDirs } from "./call_dirs.ts";

/** Both of a set's directories are still there and empty, as a call's fresh ones are. */
function untouched(dirs: CallDirs): boolean {
  try {
    return readdirSync(dirs.outputDir).length === 0 && readdirSync(dirs.tmpDir).length === 0;
  } catch {
    return false;
  }
}

/** Most sets waiting (or being made) in this process, over all owners. */
const PROCESS_MAX_READY = 16;
let processReady = 0;

interface Ready {
  /** Settles once made; undefined when that failed. */
  dirs: Promise<CallDirs | undefined>;
  made?: CallDirs;
  timer?: ReturnType<typeof setTimeout>;
}

/**
 * The call directories made ahead for one owner (a warm pool, so a registry).
 *
 * @example
 * ```ts
 * import { ReadyDirs } from "./ready_dirs.ts";
 * const ready = new ReadyDirs({ max: 2, idleMs: 10_000 });
 * ready.prepare("/tmp/toolhost-ready-example");
 * await ready.settled();
 * const dirs = ready.take("/tmp/toolhost-ready-example"); // made ahead, or undefined
 * await dirs?.remove();
 * await ready.close();
 * ```
 */
export class ReadyDirs {
  readonly #max: number;
  readonly #idleMs: number;
  readonly #sets = new Map<string, Ready>();
  readonly #removing = new Set<Promise<void>>();
  #closed = false;
  #taken = 0;

  /** At most `max` sets (one per state directory); each removed after `idleMs` untaken. */
  constructor(options: { max: number; idleMs: number }) {
    this.#max = options.max;
    this.#idleMs = options.idleMs;
  }

  /** How many sets were taken by a call so far. */
  get taken(): number {
    return this.#taken;
  }

  /** How many sets are waiting or being made. */
  get size(): number {
    return this.#sets.size;
  }

  /** Resolves once every set being made has been made (or has failed). */
  async settled(): Promise<void> {
    await Promise.allSettled([...this.#sets.values()].map((r) => r.dirs));
  }

  /**
   * A call under `stateDir` starts: its set, when one was made ahead and its directories
   * are still empty (the call owns it from now on and removes it), else undefined (the
   * call makes its own; a set something was put in meanwhile is removed).
   */
  take(stateDir: string): CallDirs | undefined {
    const r = this.#sets.get(stateDir);
    if (r?.made === undefined) return undefined;
    this.#forget(stateDir);
    clearTimeout(r.timer);
    if (!untouched(r.made)) {
      this.#remove(r.made);
      return undefined;
    }
    this.#taken++;
    return r.made;
  }

  /**
   * Make a set for the next call under `stateDir`, in a moment (after what the caller
   * does now: handing its own tool its input), within the bounds, unless one is there.
   */
  prepare(stateDir: string): void {
    if (this.#closed || this.#sets.has(stateDir)) return;
    if (this.#sets.size >= this.#max || processReady >= PROCESS_MAX_READY) return;
    const r: Ready = { dirs: Promise.resolve(undefined) };
    // Once the caller's current turn (its tool's input) is done, before any later I/O of it.
    r.dirs = new Promise<void>((resolve) => setImmediate(resolve))
      .then(() => this.#closed ? undefined : createCallDirs(stateDir))
      .catch(() => undefined);
    this.#sets.set(stateDir, r);
    processReady++;
    r.dirs.then((dirs) => {
      if (this.#sets.get(stateDir) !== r || dirs === undefined || this.#closed) {
        this.#forget(stateDir, r);
        if (dirs !== undefined) this.#remove(dirs);
        return;
      }
      r.made = dirs;
      r.timer = setTimeout(() => this.#drop(stateDir, r), this.#idleMs);
      (r.timer as { unref?: () => void }).unref?.();
    });
  }

  /** Remove every set (also those being made) and wait until each is removed. */
  async close(): Promise<void> {
    this.#closed = true;
    for (const [stateDir, r] of [...this.#sets]) this.#drop(stateDir, r);
    while (this.#removing.size > 0) await Promise.allSettled([...this.#removing]);
  }

  #drop(stateDir: string, r: Ready): void {
    this.#forget(stateDir, r);
    clearTimeout(r.timer);
    const p = r.dirs.then((dirs) => dirs === undefined ? undefined : dirs.remove());
    this.#track(p);
  }

  #forget(stateDir: string, r?: Ready): void {
    const current = this.#sets.get(stateDir);
    if (current === undefined || (r !== undefined && current !== r)) return;
    this.#sets.delete(stateDir);
    processReady--;
  }

  #remove(dirs: CallDirs): void {
    this.#track(dirs.remove());
  }

  #track(p: Promise<void>): void {
    const q = p.catch(() => {}).finally(() => this.#removing.delete(q));
    this.#removing.add(q);
  }
}
