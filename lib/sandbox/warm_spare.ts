/**
 * One warm spare's life (warm_pool.ts): spawned as a confined call's sandbox is (or, for
 * an unconfined call, as a session-leading waiter: warm_host.ts), checked to be still what
 * a cold spawn would be, handed one call, or ended unused, confirmed, with its call
 * directories removed.
 *
 * @module
 */

import { type CallDirs, createCallDirs } from "../process/call_dirs.ts";
import { abandonGroup, type GroupHandle, spawnGroup } from "../process/spawn_group.ts";
import { runtimeSafeArgv } from "../process/runtime_argv.ts";
import type { TakenSpare } from "../process/warm_adopt.ts";
import { callPayload, waiterShell } from "../process/warm_script.ts";
import { boundIdentity, sandboxedEnv, spawnExtraFds } from "./warm_fresh.ts";
import { endHostSpare, hostBaseEnv, spawnHostSpare } from "./warm_host.ts";
import { argvJson, waiterArgv, type WarmRequest } from "./warm_key.ts";

/**
 * A spare spawned and waiting for its call.
 *
 * @example
 * ```ts
 * import type { ReadySpare } from "./warm_spare.ts";
 * const argv: ReadySpare["argv"] = '{"command":"bwrap","args":[]}';
 * console.log(JSON.parse(argv).command); // "bwrap"
 * ```
 */
export interface ReadySpare {
  handle: GroupHandle;
  /** A sandbox's call directories (an unconfined spare's are made when it is taken). */
  dirs?: CallDirs;
  /** The bwrap command line (command and args), as JSON. */
  argv: string;
  args: string[];
  identity: string;
  /**
   * The environment its waiter already has, besides its group tag (a call's line only
   * exports what the call's environment changes): an unconfined spare's base
   * (warm_host.ts), a sandbox's {@linkcode sandboxWaiterBase}.
   */
  base?: Readonly<Record<string, string>>;
  /** A sandbox's `DENO_EXTRA_STDIO_FDS`, as its spawn set it (warm_fresh.ts). */
  extraFds?: string;
}

/**
 * Still what a cold spawn would be: running, same command line, same bound objects.
 *
 * @example
 * ```ts
 * import { stillFresh } from "./warm_spare.ts";
 * // if (!stillFresh(ready, req)) await endSpare(ready); // the call runs cold
 * console.log(typeof stillFresh); // "function"
 * ```
 */
export function stillFresh(r: ReadySpare, req: WarmRequest): boolean {
  if (r.handle.exitStatus !== null) return false;
  if (r.dirs === undefined) return true; // unconfined: everything is found when taken
  // What a cold call would bind now, opened and checked as its own binds would be.
  const argv = waiterArgv(req, waiterShell()!, [r.dirs.outputDir, r.dirs.tmpDir]);
  try {
    return argvJson(argv) === r.argv &&
      boundIdentity(argv.args, req.cwd, argv.binds?.fds) === r.identity;
  } finally {
    argv.binds?.close();
  }
}

/**
 * Spawn `req`'s spare after `delayMs`, unless `idle()` then says not to (a call is
 * starting, or one of the key runs): undefined when none was spawned or its spawn failed.
 *
 * @example
 * ```ts
 * import { spawnSpare } from "./warm_spare.ts";
 * const spare = await spawnSpare({ cwd: "/tmp", stateDir: "/tmp/state" }, () => false, 0);
 * console.log(spare); // undefined: not idle, so nothing was spawned
 * ```
 */
export async function spawnSpare(
  req: WarmRequest,
  idle: () => boolean,
  delayMs: number,
): Promise<ReadySpare | undefined> {
  await new Promise((resolve) => setTimeout(resolve, delayMs));
  const shell = waiterShell();
  if (shell === null || !idle()) return undefined;
  if (req.confine === undefined) {
    const base = hostBaseEnv(req.env ?? {});
    return await spawnHostSpare(shell, base).then(
      (handle) => ({ handle, argv: "", args: [], identity: "", base }),
      () => undefined,
    );
  }
  let dirs: CallDirs | undefined;
  try {
    dirs = await createCallDirs(req.stateDir);
    const argv = waiterArgv(req, shell, [dirs.outputDir, dirs.tmpDir]);
    const d = dirs;
    try {
      // The objects its binds are made from: bwrap mounts these very descriptors.
      const identity = boundIdentity(argv.args, req.cwd, argv.binds?.fds);
      const extraFds = spawnExtraFds(argv.args); // next to the spawn's own look at them
      const env = spareTmpEnv(d.tmpDir);
      const handle = await spawnGroup({
        command: argv.command,
        args: argv.args,
        binds: argv.binds,
        cwd: req.cwd,
        env,
        sandboxed: true,
        holdInput: true,
        onSpawn: (record) => d.admit(record),
      });
      const base = sandboxWaiterBase(argv.args, env);
      return { handle, dirs, argv: argvJson(argv), args: argv.args, identity, extraFds, base };
    } finally {
      argv.binds?.close();
    }
  } catch {
    await dirs?.remove().catch(() => {});
    return undefined;
  }
}

/**
 * What a sandbox's spawn gives its waiter besides the group tag: the variables a call's
 * environment sets from its private tmp dir (lib/process/env.ts `toolEnvironment`), here
 * the spare's own, which its call adopts. Paths only: never a value of the call's.
 */
function spareTmpEnv(tmpDir: string): Record<string, string> {
  return { TMPDIR: tmpDir, TMP: tmpDir, TEMP: tmpDir };
}

/**
 * The environment a sandbox's waiter has, besides its group tag, when spawned with `env`
 * and bwrap command line `args`: `env` after bwrap's `--setenv`/`--unsetenv` (the
 * sandbox's `PATH`), less `DENO_EXTRA_STDIO_FDS` and `PWD`, which every line sets itself.
 * A call's line then leaves alone what it holds with the call's own value, and unsets
 * what of it the call lacks (warm_script.ts `callPayload`): dash reads the line a byte
 * per system call, and the sandbox's `PATH` alone was half of a plain call's line.
 *
 * @example
 * ```ts
 * import { sandboxWaiterBase } from "./warm_spare.ts";
 * sandboxWaiterBase(["--setenv", "PATH", "/usr/bin", "--chdir", "/w", "--", "/bin/sh"], { TMPDIR: "/t" });
 * // { TMPDIR: "/t", PATH: "/usr/bin" }
 * ```
 */
export function sandboxWaiterBase(
  args: readonly string[],
  env: Readonly<Record<string, string>>,
): Record<string, string> {
  const base = sandboxedEnv(args, env, ""); // its own DENO_EXTRA_STDIO_FDS is unset anyway
  delete base.DENO_EXTRA_STDIO_FDS;
  delete base.PWD;
  return base;
}

/**
 * End a spare that never got a call, confirmed, then remove its call directories.
 *
 * @example
 * ```ts
 * import { endSpare } from "./warm_spare.ts";
 * // await endSpare(ready); // the pool's idle timer, or its close()
 * console.log(typeof endSpare); // "function"
 * ```
 */
export async function endSpare(r: ReadySpare): Promise<void> {
  if (r.dirs === undefined) return await endHostSpare(r.handle);
  await endUnused(r);
  await r.dirs.remove();
}

/** End a spare that got no call (its waiter reads an EOF); its directories stay. */
async function endUnused(r: ReadySpare): Promise<void> {
  const report = await abandonGroup(r.handle, [r.handle.held?.stdin, r.handle.held?.call]);
  if (report.confirmed) r.dirs?.retire(r.handle.record);
}

/**
 * A confined spare handed to its call: `handover` gives the call's line to its waiter
 * (or ends it unused when the line cannot be exported), `settle` ends it when it never ran
 * the call.
 *
 * @example
 * ```ts
 * import { takenSpare } from "./warm_spare.ts";
 * // const spare = takenSpare(ready); const h = spare.handover(command, args, env);
 * console.log(typeof takenSpare); // "function"
 * ```
 */
export function takenSpare(r: ReadySpare): TakenSpare {
  let handed = false;
  let ended: Promise<void> | undefined;
  return {
    dirs: r.dirs!,
    handover(command, args, env) {
      const argv = runtimeSafeArgv(command, args); // as bwrap's argv has it cold
      const tool = sandboxedEnv(r.args, env, r.extraFds);
      const payload = callPayload({ ...argv, env: tool, base: r.base });
      if (!payload.ok) {
        ended = endUnused(r);
        return undefined;
      }
      handed = true;
      return { handle: r.handle, payload: payload.line };
    },
    async settle() {
      // Not handed over, or handed to a run that never adopted it (it threw first).
      if (!handed || r.handle.exitStatus === null) await (ended ??= endUnused(r));
    },
  };
}
