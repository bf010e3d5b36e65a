/**
 * What a warm sandbox must still match when a call takes it: the bubblewrap command line
 * before `--` a cold spawn would get, and the host objects it bound when it was spawned.
 * A file bind mount holds the inode it was given, so a program replaced after the spare
 * was spawned would still be the old one inside it: every bound source's identity
 * (device, inode, mode, owner; for a file also its change time, which a rename or link
 * moves too) is recorded before the spawn and compared when the spare is taken; any
 * difference, and the spare is ended and the call runs cold. A folder's content is live
 * through its bind, so a folder counts by its own identity only (files made in a
 * writable folder do not make its spare stale). A bind from a descriptor (`--bind-fd`,
 * bind_open.ts) is recorded from that descriptor, the very object bwrap mounts; at the
 * take, from the descriptors a cold call would open then.
 *
 * @module
 */

import { statSync } from "node:fs";
import { fstatExact } from "../paths/exact_stat.ts";
import { type HostObjectInfo, hostObjectStat } from "../paths/host_object_stat.ts";
import process from "node:process";
import { GROUP_TAG_VAR } from "../process/escape_reaper.ts";
import { SANDBOX_INFO_FD } from "../process/sandbox_info.ts";
import { BIND_FD_BASE } from "../process/bind_fds.ts";
import { leakedFds } from "../process/leaked_fds.ts";

/** bwrap options whose first operand is a host path that gets mounted. */
const BIND_FLAGS = new Set([
  "--bind",
  "--bind-try",
  "--ro-bind",
  "--ro-bind-try",
  "--dev-bind",
  "--dev-bind-try",
]);

/** bwrap options whose first operand is a descriptor (bind_fds.ts) that gets mounted. */
const BIND_FD_FLAGS = new Set(["--bind-fd", "--ro-bind-fd"]);

/**
 * The identity of `path` (followed), or of the object open on descriptor `fd`: through
 * the host's own `stat` where one is set and answers every part exactly
 * ({@linkcode hostIdentity}), else through `node:fs`.
 */
function identity(path: string | number): string {
  const host = hostIdentity(path);
  if (host !== undefined) return host;
  try {
    // A missing `--ro-bind-try` source is common: no exception for it (they are costly).
    // A descriptor through `/proc/self/fd` where that is cheaper (under Deno), exact.
    const st = typeof path === "number"
      ? fstatExact(path, true)
      : statSync(path, { throwIfNoEntry: false });
    if (st === undefined) return "-";
    // A folder's content is live through its bind; its change time moves with every file
    // made in it, so only its own identity counts. A file bind holds its inode: any change.
    const changed = st.isDirectory() ? "" : `:${st.ctimeMs}`;
    return `${st.dev}:${st.ino}:${st.mode}:${st.uid}${changed}`;
  } catch (e) {
    return `-${(e as { code?: string }).code ?? "?"}`;
  }
}

/**
 * {@linkcode identity} through the host's `stat` (lib/paths/host_object_stat.ts; the
 * Deno entries set Deno's own, which a warm call's take asks about 30 times: `node:fs`
 * builds a `Stats` with four `Date`s around each), a descriptor's through
 * `/proc/self/fd/<fd>` (the very object open on it). Undefined — `node:fs` is asked, as
 * without a host — when none is set, the `stat` fails (a missing `-try` source: `node:fs`
 * tells it apart) or a part is missing or not exact (a device or inode number from 2^53
 * up). Both the spawn's and the take's identity come from here, the same way.
 */
function hostIdentity(path: string | number): string | undefined {
  const stat = hostObjectStat.stat;
  if (stat === undefined) return undefined;
  let info: HostObjectInfo;
  try {
    info = stat(typeof path === "number" ? `/proc/self/fd/${path}` : path);
  } catch {
    return undefined;
  }
  const { dev, ino, mode, uid } = info;
  const ctime = info.ctime?.getTime();
  if (!Number.isSafeInteger(dev) || typeof ino !== "number" || !Number.isSafeInteger(ino)) {
    return undefined;
  }
  if (typeof mode !== "number" || typeof uid !== "number") return undefined;
  if (info.isDirectory) return `${dev}:${ino}:${mode}:${uid}`;
  return ctime === undefined || !Number.isFinite(ctime)
    ? undefined
    : `${dev}:${ino}:${mode}:${uid}:${ctime}`;
}

/** The options before bwrap's `--` (all of them when there is none). */
function options(args: readonly string[]): readonly string[] {
  const end = args.indexOf("--");
  return end < 0 ? args : args.slice(0, end);
}

/**
 * The identities of everything bwrap command line `args` binds from the host — a path,
 * or a descriptor of `binds` (the child's fds from `BIND_FD_BASE`, in order) — and of the
 * working directory `cwd`, as one string (equal strings: nothing changed).
 *
 * @example
 * ```ts
 * import { boundIdentity } from "./warm_fresh.ts";
 * boundIdentity(["--ro-bind", "/usr", "/usr", "--", "/bin/true"], "/") ===
 *   boundIdentity(["--ro-bind", "/usr", "/usr", "--", "/bin/true"], "/"); // true
 * ```
 */
export function boundIdentity(
  args: readonly string[],
  cwd: string,
  binds: readonly number[] = [],
): string {
  const opts = options(args);
  const out = [identity(cwd)];
  for (let i = 0; i < opts.length - 1; i++) {
    if (BIND_FLAGS.has(opts[i])) out.push(`${opts[i + 1]}=${identity(opts[i + 1])}`);
    else if (BIND_FD_FLAGS.has(opts[i]) && i + 2 < opts.length) {
      const fd = binds[Number(opts[i + 1]) - BIND_FD_BASE];
      out.push(`${opts[i + 2]}=${fd === undefined ? "?" : identity(fd)}`);
    }
  }
  return out.join("\n");
}

/**
 * The environment a tool gets from a cold sandboxed spawn with environment `env` and
 * bwrap command line `args`, without the group tag: what a warm sandbox's waiter must
 * export. Under Deno the spawn itself sets `DENO_EXTRA_STDIO_FDS` (the extra `--info-fd`
 * pipe, fd 3, and the bind descriptors from fd 5); bwrap applies its `--setenv`/`--unsetenv`, then sets `PWD` to the working
 * directory it changed to (`--chdir`). `extra`: that variable as worked out when the spare
 * was spawned ({@linkcode spawnExtraFds}), so a call does not list this process's
 * descriptors again (about 1 ms of CPU).
 *
 * @example
 * ```ts
 * import { sandboxedEnv } from "./warm_fresh.ts";
 * sandboxedEnv(["--setenv", "PATH", "/usr/bin", "--chdir", "/w", "--", "/bin/true"], { PATH: "/x" });
 * // { PATH: "/usr/bin", PWD: "/w" } (and DENO_EXTRA_STDIO_FDS: "3" under Deno)
 * ```
 */
export function sandboxedEnv(
  args: readonly string[],
  env: Readonly<Record<string, string>>,
  extra?: string,
): Record<string, string> {
  const out = { ...env };
  const opts = options(args);
  if (process.versions.deno !== undefined) out.DENO_EXTRA_STDIO_FDS = extra ?? extraFds(opts);
  let chdir: string | undefined;
  for (let i = 0; i < opts.length; i++) {
    if (opts[i] === "--setenv" && i + 2 < opts.length) {
      out[opts[i + 1]] = opts[i + 2];
      i += 2;
    } else if (opts[i] === "--unsetenv" && i + 1 < opts.length) {
      delete out[opts[i + 1]];
      i += 1;
    } else if (opts[i] === "--chdir" && i + 1 < opts.length) {
      chdir = opts[i + 1];
      i += 1;
    }
  }
  if (chdir !== undefined) out.PWD = chdir;
  delete out[GROUP_TAG_VAR];
  return out;
}

/**
 * `DENO_EXTRA_STDIO_FDS` as a Deno spawn of bwrap command line `args` sets it now
 * (undefined under Node, which sets none): worked out when a spare is spawned.
 *
 * @example
 * ```ts
 * import { spawnExtraFds } from "./warm_fresh.ts";
 * spawnExtraFds(["--ro-bind-fd", "5", "/usr", "--", "/bin/true"]); // "3,5" under Deno
 * ```
 */
export function spawnExtraFds(args: readonly string[]): string | undefined {
  return process.versions.deno === undefined ? undefined : extraFds(options(args));
}

/**
 * What a Deno spawn sets `DENO_EXTRA_STDIO_FDS` to: fd 3, the bind descriptors and the
 * numbers it covers with `/dev/null` (lib/process/leaked_fds.ts), in order.
 */
function extraFds(opts: readonly string[]): string {
  const fds = new Set([SANDBOX_INFO_FD]);
  for (let i = 0; i < opts.length - 1; i++) {
    if (BIND_FD_FLAGS.has(opts[i])) fds.add(Number(opts[i + 1]));
  }
  const set = [...fds];
  for (const fd of leakedFds()) if (fd > SANDBOX_INFO_FD && !fds.has(fd)) set.push(fd);
  return set.sort((a, b) => a - b).join(",");
}

/**
 * The environment a tool gets from a cold unconfined spawn with environment `env`,
 * without the group tag: `env` (the setsid launcher adds nothing), less the
 * `DENO_EXTRA_STDIO_FDS` a Deno spawn with no extra descriptors drops.
 *
 * @example
 * ```ts
 * import { unconfinedEnv } from "./warm_fresh.ts";
 * unconfinedEnv({ PATH: "/usr/bin", _TOOLHOST_GROUP_TAG: "x" }); // { PATH: "/usr/bin" }
 * ```
 */
export function unconfinedEnv(env: Readonly<Record<string, string>>): Record<string, string> {
  const out = { ...env };
  delete out[GROUP_TAG_VAR];
  if (process.versions.deno !== undefined) delete out.DENO_EXTRA_STDIO_FDS;
  return out;
}
