/**
 * Warm spares: a confined call's bubblewrap sandbox (or an unconfined call's session
 * leader) spawned before the call, so that bwrap's namespace and mount setup (about 12 ms
 * and an extra `exec` on the bench VM), or the setsid launcher's `exec`, and the call's
 * directories are off the call's critical path.
 *
 * A spare is spawned exactly as a confined call's sandbox is (`spawnGroup` with
 * `sandboxed`: dead man's switch armed and bound, `--info-fd`, the setsid launcher), with
 * its own private call directories (created and journaled — `admit` — when it is
 * spawned, so `toolhost sweep` covers it after a crash) as its writable output and tmp
 * dirs. Its command is a waiter (lib/process/warm_script.ts) that reads the call's line
 * from fd 4 and `exec`s the tool with exactly the cold path's argv, environment, working
 * directory and descriptors. A call takes the spare of its key (everything on the bwrap
 * command line before `--`, and the state directory), adopts its call directories, and
 * runs in it; each spare serves one call and is never reused. After the call the next
 * spare of that key is spawned in the background.
 *
 * Bounds: at most one spare per key and {@linkcode WarmPoolOptions.maxSpares} in all
 * (the least recently spawned is ended for a new key), 16 in the whole process (past it,
 * calls run cold); a spare unused for
 * {@linkcode WarmPoolOptions.idleMs} is ended; `close()` ends them all, confirmed.
 * Nothing a spare starts outlives toolhost: the dead man's switch and the last-resort
 * hooks cover it like any sandboxed group.
 *
 * Unconfined calls get spares too, under Deno on Linux (where a cold call goes through
 * the setsid launcher): a waiter leading its own session that owns nothing until a call
 * takes it (warm_host.ts). Their key is the state directory; the next one is spawned as
 * soon as a call ends, unless another call of the key has started (so a burst runs
 * cold, without a spawn contending with each call), and a call waits for one still
 * being spawned.
 *
 * Call directories are made ahead too (lib/process/ready_dirs.ts): once a call's tool
 * has its input, the next call's directories under its state directory are made while
 * it runs, so a call that follows — one of a burst, which runs cold — takes them instead
 * of making its own before its spawn ({@linkcode WarmPool.takeDirs}).
 *
 * No spare's spawn begins while any call of the pool's owner is starting — also one that
 * never runs warm (`enter`: resource limits, a joined network), whose own spawn it would
 * slow; a call is starting from its `take` (or `enter`) until its tool runs (`started`).
 *
 * Not warm (the cold path, unchanged): runs with resource limits (their guard wraps the
 * sandbox), bound calls joining a session's network, sessions, extension servers,
 * hooks and the native tools (`shell_exec`, `git_*`: lib/native spawns them), a call
 * whose environment dash cannot export unchanged or whose line is too long
 * (warm_script.ts), hosts without a trusted dash, and `TOOLHOST_WARM_SANDBOXES=0`.
 *
 * @module
 */

import process from "node:process";
import type { CallDirs } from "../process/call_dirs.ts";
import { ReadyDirs } from "../process/ready_dirs.ts";
import type { TakenSpare } from "../process/warm_adopt.ts";
import { waiterShell } from "../process/warm_script.ts";
import { takeHostSpare } from "./warm_host.ts";
import { spareKey, type WarmRequest } from "./warm_key.ts";
import { endSpare, type ReadySpare, spawnSpare, stillFresh, takenSpare } from "./warm_spare.ts";

export type { WarmRequest } from "./warm_key.ts";

/** Options of a {@linkcode WarmPool}. */
export interface WarmPoolOptions {
  /** Most spares at once (one per key). Default 4. */
  maxSpares?: number;
  /** A spare unused this long is ended, in ms. Default 10000. */
  idleMs?: number;
}

export type { TakenSpare } from "../process/warm_adopt.ts";

interface Entry {
  ready: Promise<ReadySpare | undefined>;
  /** Set once `ready` has settled. */
  done: boolean;
  /** Set once its spawn has begun (past its delay, with no call starting). */
  started: boolean;
  timer?: ReturnType<typeof setTimeout>;
}

/**
 * Most spares waiting (or being spawned) in this process, over all pools: an MCP server
 * with many HTTP sessions has a registry, and so a pool, per session.
 */
const PROCESS_MAX_SPARES = 16;
let processSpares = 0;

/**
 * Whether warm sandboxes are on: `TOOLHOST_WARM_SANDBOXES=0` turns them off.
 *
 * @example
 * ```ts
 * import { warmSandboxesEnabled } from "./warm_pool.ts";
 * warmSandboxesEnabled({ TOOLHOST_WARM_SANDBOXES: "0" }); // false
 * ```
 */
export function warmSandboxesEnabled(
  env: Record<string, string | undefined> = process.env,
): boolean {
  return env.TOOLHOST_WARM_SANDBOXES !== "0" && waiterShell() !== null;
}

/**
 * The warm sandboxes of one owner (a registry): at most one per key.
 *
 * @example
 * ```ts
 * import { WarmPool } from "./warm_pool.ts";
 * const pool = new WarmPool({ maxSpares: 2 });
 * // const taken = await pool.take({ confine, cwd, stateDir }); ... pool.replenish(req);
 * await pool.close();
 * ```
 */
export class WarmPool {
  readonly #max: number;
  readonly #idleMs: number;
  readonly #entries = new Map<string, Entry>();
  readonly #ending = new Set<Promise<void>>();
  /** Calls running per key: between their `take` and their `replenish`. */
  readonly #busy = new Map<string, number>();
  /** Calls between their `take` and their `started` (or `replenish`), over all keys. */
  #starting = 0;
  #closed = false;
  readonly #stats = { spawned: 0, taken: 0 };
  /** The next calls' directories, made while a call's tool runs (ready_dirs.ts). */
  readonly #ready: ReadyDirs;

  /** A pool with the given bounds. */
  constructor(options: WarmPoolOptions = {}) {
    this.#max = options.maxSpares ?? 4;
    this.#idleMs = options.idleMs ?? 10_000;
    this.#ready = new ReadyDirs({ max: this.#max, idleMs: this.#idleMs });
  }

  /** How many spares are waiting or being spawned. */
  get size(): number {
    return this.#entries.size;
  }

  /**
   * Spares spawned and spares taken by a call, so far; `dirsTaken`: calls that took
   * call directories made ahead ({@linkcode WarmPool.takeDirs}); `dirsReady`: sets made
   * ahead and not taken yet.
   */
  get stats(): { spawned: number; taken: number; dirsTaken: number; dirsReady: number } {
    return { ...this.#stats, dirsTaken: this.#ready.taken, dirsReady: this.#ready.size };
  }

  /** Resolves once every spare being spawned (and call directory set being made ahead)
   * has been (or has failed). */
  async settled(): Promise<void> {
    await Promise.allSettled([...this.#entries.values()].map((e) => e.ready));
    await this.#ready.settled();
  }

  /**
   * Call directories under `stateDir` made ahead for the next call (ready_dirs.ts; made
   * after a call of this pool had its tool started), or undefined: the call makes its own.
   * The caller owns (and removes) what it gets.
   */
  takeDirs(stateDir: string): CallDirs | undefined {
    return this.#closed ? undefined : this.#ready.take(stateDir);
  }

  /**
   * A call of `req`'s key starts: take its spare, if it still matches what a cold spawn
   * would get; else undefined (the call runs cold). A sandbox still being spawned is left
   * for the next call: waiting for it would cost this one more than its own spawn (an
   * unconfined spare is waited for: its spawn is the one a cold call would make). Every
   * `take` must be followed by a {@linkcode WarmPool.replenish} when the call has ended,
   * and should be by a {@linkcode WarmPool.started} once its tool runs.
   */
  async take(req: WarmRequest): Promise<TakenSpare | undefined> {
    const key = spareKey(req);
    if (key === undefined) return undefined;
    this.#busy.set(key, (this.#busy.get(key) ?? 0) + 1);
    this.#starting++;
    // An unconfined spare being spawned is nearer ready than a cold spawn would be.
    const host = req.confine === undefined;
    const entry = this.#entries.get(key);
    // Not one whose spawn has yet to begin: it will not, while this call starts.
    if (entry === undefined || (!entry.done && !(host && entry.started))) return undefined;
    this.#remove(key);
    clearTimeout(entry.timer);
    const ready = await entry.ready;
    if (ready === undefined) return undefined;
    if (this.#closed || !stillFresh(ready, req)) {
      await this.#end(ready);
      return undefined;
    }
    if (host && req.fits?.(ready.base ?? {}) === false) {
      // Its base is too far from this call's environment: the next one follows this call.
      void this.#end(ready);
      return undefined;
    }
    const spare = host
      ? await takeHostSpare(
        ready.handle,
        req.stateDir,
        req.cwd,
        ready.base,
        this.takeDirs(req.stateDir),
      )
      : takenSpare(ready);
    if (spare !== undefined) this.#stats.taken++;
    return spare;
  }

  /**
   * A call that never runs warm (one with resource limits, or one whose line would be
   * too long) starts: while it starts, no spare's spawn begins (it would contend with
   * this call's own spawn). Follow it with {@linkcode WarmPool.leave}.
   */
  enter(): void {
    this.#starting++;
  }

  /**
   * A call `take` (or `enter`, with no `req`) was asked for has its tool running (handed
   * to its spare, or spawned cold). Call at most once per call. Once its input is handed
   * over (a moment later), the directories of the next call under its state directory
   * are made, while this call's tool runs.
   */
  started(req?: WarmRequest): void {
    if (req === undefined || spareKey(req) !== undefined) this.#starting--;
    if (req !== undefined && !this.#closed) this.#ready.prepare(req.stateDir);
  }

  /** A call {@linkcode WarmPool.enter} was called for has ended. */
  leave(started = false): void {
    if (!started) this.#starting--;
  }

  /**
   * A call of `req`'s key has ended (`started`: whether {@linkcode WarmPool.started} was
   * called for it): spawn the key's next spare in the background, unless it has one (a
   * sandbox: shortly after, and only while no call of the key runs).
   */
  replenish(req: WarmRequest, started = false): void {
    const key = spareKey(req);
    if (key === undefined) return;
    if (!started) this.#starting--;
    const busy = (this.#busy.get(key) ?? 1) - 1;
    if (busy > 0) this.#busy.set(key, busy);
    else this.#busy.delete(key);
    // An unconfined spare's spawn is cheap enough to follow the call at once.
    this.#spawn(key, req, req.confine === undefined ? 0 : SPAWN_DELAY_MS);
  }

  /** Spawn `key`'s spare after `delayMs`, within the bounds, unless it has one. */
  #spawn(key: string, req: WarmRequest, delayMs: number): void {
    if (this.#closed || this.#entries.has(key)) return;
    while (this.#entries.size >= this.#max) {
      const [oldest, e] = this.#entries.entries().next().value!;
      this.#drop(oldest, e);
    }
    if (processSpares >= PROCESS_MAX_SPARES) return;
    // Not while a call of the key runs: back-to-back calls would each contend with it
    // (measured: unconfined, 3.34x raw against 3.08x cold at load 9-11, and at load 4
    // 2.89x against 2.29x, with a spare spawned as each call's tool started: the spare's
    // two `exec`s cost more CPU than the cold call's one saved). Nor while any call
    // starts (also one that never runs warm, `enter`): it would contend with that call's
    // own spawn (limited calls ran 17.9 ms with spares against 11.3 ms without).
    const entry: Entry = { ready: Promise.resolve(undefined), done: false, started: false };
    const idle =
      () => (entry.started = !this.#closed && this.#starting === 0 && !this.#busy.has(key));
    entry.ready = spawnSpare(req, idle, delayMs);
    this.#entries.set(key, entry);
    processSpares++;
    entry.ready.then((r) => {
      entry.done = true;
      if (r !== undefined) this.#stats.spawned++;
      if (this.#entries.get(key) !== entry) return; // taken or dropped meanwhile
      if (r === undefined || this.#closed) return this.#drop(key, entry);
      entry.timer = setTimeout(() => this.#drop(key, entry), this.#idleMs);
      (entry.timer as { unref?: () => void }).unref?.();
    });
  }

  /** End every spare (also those being spawned) and wait until each is confirmed gone. */
  async close(): Promise<void> {
    this.#closed = true;
    for (const [key, e] of [...this.#entries]) this.#drop(key, e);
    const dirs = this.#ready.close();
    while (this.#ending.size > 0) await Promise.allSettled([...this.#ending]);
    await dirs;
  }

  #remove(key: string): void {
    if (this.#entries.delete(key)) processSpares--;
  }

  #drop(key: string, e: Entry): void {
    if (this.#entries.get(key) === e) this.#remove(key);
    clearTimeout(e.timer);
    this.#track(e.ready.then((r) => r === undefined ? undefined : this.#end(r)));
  }

  #end(r: ReadySpare): Promise<void> {
    return this.#track(endSpare(r));
  }

  #track(p: Promise<void>): Promise<void> {
    const q = p.catch(() => {}).finally(() => this.#ending.delete(q));
    this.#ending.add(q);
    return q;
  }
}

/**
 * How long after a call a spare's spawn waits: the call's result is on its way first (a
 * spawn's synchronous part costs a few ms), and a call of the same key that follows at
 * once runs cold without a spawn contending with it.
 */
const SPAWN_DELAY_MS = 20;
