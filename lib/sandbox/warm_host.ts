/**
 * Warm spares of unconfined calls (warm_pool.ts): a dash waiter started through the
 * setsid launcher (session_launcher.ts), so leading its own session and process group as
 * a cold unconfined call's tool does, with no extra descriptor (under Deno one makes the
 * spawn fork the whole runtime): it reads its call line from stdin, before the tool's
 * input (`STDIN_WAITER_SCRIPT`).
 *
 * A waiting spare owns nothing a call could see: its working directory is `/`, it has no
 * call directory, and it is on no journal and
 * not on the dead man's switch — it runs nothing but a whole line read from this
 * process, and reads end-of-file when this process dies. When a call takes it, the
 * call's directories are made and the spare's group is journaled in them (so
 * `toolhost sweep` covers it from then on) before its line is written: `cd` to the
 * call's working directory (resolved then, like a cold spawn's), the environment, and
 * `exec` of the program (found then: a program replaced since the spare was spawned is
 * the new one). A program or working directory the cold spawn would refuse runs cold.
 *
 * Its environment is its group tag and a base: the environment of the call it follows
 * (`hostBaseEnv`: what the tool got, less what dash or the line sets itself and the
 * call's own directories), so that the line of a call whose environment did not change
 * carries none of it — only `unset` of each base name the call lacks and `export` of
 * each name it adds or changes (warm_script.ts `callPayload`): the tool gets exactly the
 * call's environment. The base is readable only in `/proc/PID/environ` (its owner's), as
 * any tool's environment is; no argument value is ever in it, and no variable granted to
 * the call alone (a plugin's protected values: invoke.ts `grantedEnv`) — those reach a
 * spare only on the line of the call granted them.
 *
 * @module
 */

import { statSync } from "node:fs";
import { type CallDirs, createCallDirs } from "../process/call_dirs.ts";
import { abandonGroup, type GroupHandle, spawnGroup } from "../process/spawn_group.ts";
import type { TakenSpare } from "../process/warm_adopt.ts";
import { runtimeSafeArgv } from "../process/runtime_argv.ts";
import { checkExecutable } from "../process/session_launcher.ts";
import { callPayload, STDIN_WAITER_SCRIPT, WAITER_RESERVED_NAMES } from "../process/warm_script.ts";
import { isEnvName } from "../process/env.ts";
import { unconfinedEnv } from "./warm_fresh.ts";

/** The variables a call's own directories give it (lib/process/env.ts `toolEnvironment`). */
const CALL_VARS = new Set(["TMPDIR", "TMP", "TEMP"]);

/**
 * The base environment of a spare that follows a call whose tool got environment `env`
 * (before its group tag): `env` less the group tag, the names a waiter must not inherit
 * (warm_script.ts `WAITER_RESERVED_NAMES`), the call's directories' variables, names
 * dash would not import and values a spawn refuses.
 *
 * @example
 * ```ts
 * import { hostBaseEnv } from "./warm_host.ts";
 * hostBaseEnv({ PATH: "/usr/bin", TMPDIR: "/t", IFS: ":" }); // { PATH: "/usr/bin" }
 * ```
 */
export function hostBaseEnv(env: Readonly<Record<string, string>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(unconfinedEnv(env))) {
    if (!isEnvName(k) || WAITER_RESERVED_NAMES.has(k) || CALL_VARS.has(k)) continue;
    if (!v.includes("\0")) out[k] = v;
  }
  return out;
}

/**
 * Spawn an unconfined spare: `shell` running the stdin waiter in `/`, leading its own
 * session, with environment `base` (a {@linkcode hostBaseEnv}; default none) and its
 * group tag. Rejects as `spawnGroup` does.
 *
 * @example
 * ```ts
 * import { spawnHostSpare } from "./warm_host.ts";
 * import { abandonGroup } from "../process/spawn_group.ts";
 * const h = await spawnHostSpare("/usr/bin/dash", { PATH: "/usr/bin" });
 * await abandonGroup(h, [h.held?.stdin]);
 * ```
 */
export function spawnHostSpare(
  shell: string,
  base: Readonly<Record<string, string>> = {},
): Promise<GroupHandle> {
  return spawnGroup({
    command: shell,
    args: ["-c", STDIN_WAITER_SCRIPT],
    cwd: "/",
    env: { ...base },
    holdInput: "stdin",
  });
}

/**
 * Most bytes of an unconfined call's line (estimated) handed to a waiter. Its dash reads
 * the line a byte per system call — about 1.5 µs of CPU and up to 5 µs of waiting a byte
 * on the 2-core bench VM under load — while the spare saves one `exec` of the setsid
 * launcher (about 2.4 ms there when quiet): past this, the call runs cold.
 */
export const MAX_HOST_CALL_BYTES = 1024;

/**
 * Whether an unconfined call of `command` with arguments `args` in `cwd`, whose tool
 * gets environment `env` (its call directories' variables are allowed for), has a line
 * short enough for a spare spawned with base environment `base` ({@link
 * MAX_HOST_CALL_BYTES}): only what `env` changes from `base` is on the line.
 *
 * @example
 * ```ts
 * import { hostCallFits } from "./warm_host.ts";
 * hostCallFits("/bin/echo", ["hi"], "/", { PATH: "/usr/bin" }); // true
 * ```
 */
export function hostCallFits(
  command: string,
  args: readonly string[],
  cwd: string,
  env: Readonly<Record<string, string>> = {},
  base: Readonly<Record<string, string>> = {},
): boolean {
  // The fixed words, and the call's TMPDIR, TMP and TEMP.
  let n = 300 + command.length + cwd.length;
  for (const a of args) n += a.length + 3;
  for (const k in env) {
    if (Object.hasOwn(base, k) && base[k] === env[k]) continue;
    n += k.length + env[k].length + 11;
    if (n > MAX_HOST_CALL_BYTES) return false;
  }
  for (const k in base) {
    if (Object.hasOwn(env, k)) continue;
    n += k.length + 1;
    if (n > MAX_HOST_CALL_BYTES) return false;
  }
  return n <= MAX_HOST_CALL_BYTES;
}

/** What `cwd` a cold spawn would accept: an existing directory. */
function isDirectory(cwd: string): boolean {
  return statSync(cwd, { throwIfNoEntry: false })?.isDirectory() === true;
}

/** `command` passes the cold unconfined spawn's check (session_launcher.ts). */
function executable(command: string): boolean {
  try {
    checkExecutable(command);
    return true;
  } catch {
    return false;
  }
}

/**
 * A call takes the waiting spare `handle`: its call directories are made under
 * `stateDir` (or are `made`, made ahead there: ready_dirs.ts) and the spare's group
 * journaled in them. Undefined (the spare ended and the directories removed; the call
 * runs cold and makes its own) when either fails.
 *
 * @example
 * ```ts
 * import { spawnHostSpare, takeHostSpare } from "./warm_host.ts";
 * const base = { PATH: "/usr/bin" };
 * const h = await spawnHostSpare("/usr/bin/dash", base);
 * const taken = await takeHostSpare(h, "/tmp/state", "/", base);
 * await taken?.settle();
 * await taken?.dirs.remove();
 * ```
 */
export async function takeHostSpare(
  handle: GroupHandle,
  stateDir: string,
  cwd: string,
  base: Readonly<Record<string, string>> = {},
  made?: CallDirs,
): Promise<TakenSpare | undefined> {
  let dirs: CallDirs | undefined = made;
  try {
    dirs ??= await createCallDirs(stateDir);
    dirs.admit(handle.record);
  } catch {
    await endHostSpare(handle, dirs);
    await dirs?.remove().catch(() => {});
    return undefined;
  }
  return hostTaken(handle, dirs, cwd, base);
}

/**
 * End a spare that got no call (its waiter reads end-of-file); once confirmed gone, a
 * call directory it was journaled in need not look for it again.
 *
 * @example
 * ```ts
 * import { endHostSpare, spawnHostSpare } from "./warm_host.ts";
 * await endHostSpare(await spawnHostSpare("/usr/bin/dash"));
 * ```
 */
export async function endHostSpare(handle: GroupHandle, dirs?: CallDirs): Promise<void> {
  const report = await abandonGroup(handle, [handle.held?.stdin]);
  if (report.confirmed) dirs?.retire(handle.record);
}

function hostTaken(
  handle: GroupHandle,
  dirs: CallDirs,
  cwd: string,
  base: Readonly<Record<string, string>>,
): TakenSpare {
  let handed = false;
  let ended: Promise<void> | undefined;
  const refuse = () => {
    ended = endHostSpare(handle, dirs); // the cold spawn reports what it would
    return undefined;
  };
  return {
    dirs,
    handover(command, args, env) {
      if (!executable(command) || !isDirectory(cwd)) return refuse();
      const argv = runtimeSafeArgv(command, args); // as the setsid launcher's has it cold
      const payload = callPayload({ ...argv, env: unconfinedEnv(env), cwd, base });
      if (!payload.ok) return refuse();
      handed = true;
      return { handle, payload: payload.line };
    },
    async settle() {
      // Not handed over, or handed to a run that never adopted it (it threw first).
      if (!handed || handle.exitStatus === null) await (ended ??= endHostSpare(handle, dirs));
    },
  };
}
