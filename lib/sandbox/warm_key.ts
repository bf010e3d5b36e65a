/**
 * What identifies a warm spare (warm_pool.ts): a call's request, and the key a spare of it
 * is filed under — everything on the bwrap command line before `--` (with placeholders for
 * the spare's own call directories) and the state directory; for an unconfined call, the
 * state directory and the waiter's shell.
 *
 * @module
 */

import type { Confine } from "../process/sandbox_init.ts";
import { sessionLauncher } from "../process/session_launcher.ts";
import { WAITER_SCRIPT, waiterShell } from "../process/warm_script.ts";

/**
 * What identifies a call's spare.
 *
 * @example
 * ```ts
 * import type { WarmRequest } from "./warm_key.ts";
 * const req: WarmRequest = { cwd: "/tmp", stateDir: "/tmp/state" }; // unconfined
 * console.log(req.confine === undefined); // true
 * ```
 */
export interface WarmRequest {
  /**
   * The call's confinement; undefined for an unconfined call, whose spare is a waiter
   * leading its own session and process group (what the setsid launcher makes cold).
   */
  confine?: Confine;
  /** Its working directory. */
  cwd: string;
  /** The state directory its call directories go under. */
  stateDir: string;
  /**
   * An unconfined call's environment (what its tool gets, its call directories'
   * variables and what it alone was granted aside): the base of the spare spawned after
   * it (warm_host.ts `hostBaseEnv`). Default none.
   */
  env?: Readonly<Record<string, string>>;
  /**
   * Whether an unconfined call's line is short enough for a spare spawned with base
   * environment `base` (warm_host.ts `hostCallFits`); if not, the spare is ended and the
   * call runs cold. Default: it is.
   */
  fits?: (base: Readonly<Record<string, string>>) => boolean;
}

/** Writable dirs standing in for a spare's own in a key (same depth as the real ones). */
const PLACEHOLDERS = ["/\0/calls/spare/output", "/\0/calls/spare/tmp"];

/**
 * The waiter's command line confined by `req`, with `writable` as its call dirs, and its
 * bind sources opened (the caller closes them); with `key`, nothing opened.
 *
 * @example
 * ```ts
 * import type { Confine } from "../process/sandbox_init.ts";
 * import { waiterArgv } from "./warm_key.ts";
 * const confine: Confine = {
 *   wrap: (command, args) => ({ command: "bwrap", args: ["--", command, ...args] }),
 * };
 * const argv = waiterArgv({ confine, cwd: "/tmp", stateDir: "/tmp/s" }, "/bin/sh", [], true);
 * console.log(argv.args[1]); // "/bin/sh"
 * ```
 */
export function waiterArgv(
  req: WarmRequest,
  shell: string,
  writable: readonly string[],
  key = false,
): ReturnType<Confine["wrap"]> {
  return req.confine!.wrap(shell, ["-c", WAITER_SCRIPT], req.cwd, writable, key);
}

/**
 * A command line as JSON (what a spare's must still equal).
 *
 * @example
 * ```ts
 * import { argvJson } from "./warm_key.ts";
 * argvJson({ command: "bwrap", args: ["--"] }); // '{"command":"bwrap","args":["--"]}'
 * ```
 */
export function argvJson(argv: { command: string; args: readonly string[] }): string {
  return JSON.stringify({ command: argv.command, args: argv.args });
}

/**
 * Each request's key, worked out once: one call asks for it at its take, its start and its
 * replenish, and a confined key is a whole bubblewrap command line (about 0.1 ms each).
 * A key that would differ by the replenish (the host changed meanwhile) only misfiles the
 * next spare: a call takes a spare only under its own key, and `stillFresh`
 * (warm_spare.ts) checks it again.
 */
const keys = new WeakMap<WarmRequest, string | undefined>();

/**
 * A confined key per confinement object, working directory and state directory: its
 * command line is the confinement's fixed plan around the waiter (lib/sandbox/confine.ts
 * opens nothing for a key), so a caller that keeps one `Confine` for a declaration's
 * calls (a plain or json call's `confine`) works it out once, not at every take (about
 * 0.3 ms of a warm call's critical path). The same holds here as above: a key is only
 * where a spare is filed; `stillFresh` compares the whole command line at the take.
 */
const confinedKeys = new WeakMap<Confine, Map<string, string | undefined>>();

/**
 * The key of `req`'s spare, or undefined when it cannot have one (no trusted waiter shell;
 * unconfined, no setsid launcher): the call runs cold. Worked out once per request object.
 *
 * @example
 * ```ts
 * import { spareKey } from "./warm_key.ts";
 * const key = spareKey({ cwd: "/tmp", stateDir: "/tmp/state" });
 * console.log(key === undefined || key.startsWith("[")); // true
 * ```
 */
export function spareKey(req: WarmRequest): string | undefined {
  if (keys.has(req)) return keys.get(req);
  const key = req.confine === undefined ? computeKey(req) : confinedKey(req, req.confine);
  keys.set(req, key);
  return key;
}

function confinedKey(req: WarmRequest, confine: Confine): string | undefined {
  let byDirs = confinedKeys.get(confine);
  if (byDirs === undefined) confinedKeys.set(confine, byDirs = new Map());
  const at = JSON.stringify([req.stateDir, req.cwd]);
  if (byDirs.has(at)) return byDirs.get(at);
  const key = computeKey(req);
  // Bounded: a confinement's calls have few working directories.
  if (byDirs.size >= 16) byDirs.clear();
  byDirs.set(at, key);
  return key;
}

function computeKey(req: WarmRequest): string | undefined {
  const shell = waiterShell();
  if (shell === null) return undefined;
  // Unconfined, a waiter stands in for the setsid launcher (under Node a cold `detached`
  // spawn is already as cheap as a plain one, and fails differently).
  if (req.confine === undefined) {
    return sessionLauncher() === null ? undefined : JSON.stringify([req.stateDir, shell]);
  }
  return JSON.stringify([
    req.stateDir,
    req.cwd,
    argvJson(waiterArgv(req, shell, PLACEHOLDERS, true)),
  ]);
}
