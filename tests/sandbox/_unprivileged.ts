/**
 * Running the toolhost CLI as an unprivileged user from a test that runs as root (CI):
 * a system user `toolhost-unpriv` (created with `useradd` when missing), and a copy of
 * what that user needs and cannot reach under root's home — the Deno binary and its npm
 * cache (hard links where the file system allows, else copies), the CLI's sources and a
 * home of its own. Processes switch user with `setpriv` (util-linux).
 */

import { REPO_ROOT } from "../helpers/cli.ts";
import { skipReason } from "./_corpus.ts";

/** The unprivileged user the tests run toolhost as. */
export const UNPRIV_USER = "toolhost-unpriv";

/** A user's ids. */
export interface UserIds {
  /** User id. */
  uid: number;
  /** Primary group id. */
  gid: number;
}

/** The staged runtime: a folder readable by the user. */
export interface Stage extends AsyncDisposable {
  /** The user. */
  user: UserIds;
  /** The staging folder. */
  dir: string;
  /** The user's home (owned by it). */
  home: string;
  /** Run `toolhost ARGS...` as the user; `ATTACK_PID` is set to toolhost's own pid. */
  cli(args: string[], env?: Record<string, string>): Promise<Output>;
}

/** What a command printed. */
export interface Output {
  /** Exit code. */
  code: number;
  /** stdout. */
  out: string;
  /** stderr. */
  err: string;
}

/**
 * Run a command; never throws for a missing program (code 127).
 *
 * @example
 * ```ts
 * const { code } = await run("id", ["-u"]);
 * ```
 */
export async function run(
  cmd: string,
  args: string[],
  opts: { env?: Record<string, string>; clearEnv?: boolean } = {},
): Promise<Output> {
  try {
    const o = await new Deno.Command(cmd, { args, ...opts, stdout: "piped", stderr: "piped" })
      .output();
    const dec = new TextDecoder();
    return { code: o.code, out: dec.decode(o.stdout), err: dec.decode(o.stderr) };
  } catch (e) {
    return { code: 127, out: "", err: String(e) };
  }
}

async function which(name: string): Promise<string | undefined> {
  const r = await run("/bin/sh", ["-c", `command -v ${name}`]);
  return r.code === 0 ? r.out.trim() : undefined;
}

async function userIds(): Promise<UserIds | undefined> {
  const u = await run("id", ["-u", UNPRIV_USER]);
  const g = await run("id", ["-g", UNPRIV_USER]);
  if (u.code !== 0 || g.code !== 0) return undefined;
  return { uid: Number(u.out.trim()), gid: Number(g.out.trim()) };
}

/** The user, created when missing; or why it cannot be had. */
async function ensureUser(): Promise<UserIds | string> {
  const have = await userIds();
  if (have !== undefined) return have;
  const r = await run("useradd", [
    "--system",
    "--no-create-home",
    "--home-dir",
    "/nonexistent",
    "--shell",
    "/usr/sbin/nologin",
    UNPRIV_USER,
  ]);
  // Another test run may have created it meanwhile.
  return await userIds() ??
    `could not create the user ${UNPRIV_USER} with useradd (${r.err.trim().split("\n")[0]})`;
}

/**
 * Undefined when the unprivileged tests can run here, else the reason to print with SKIP
 * (not root; no bwrap or setpriv; no user namespaces for an unprivileged user).
 *
 * @example
 * ```ts
 * const why = await unprivilegedSkipReason();
 * ```
 */
export async function unprivilegedSkipReason(): Promise<string | undefined> {
  const sandbox = skipReason();
  if (sandbox !== undefined) return sandbox;
  if (Deno.uid() !== 0) {
    return "not root: switching to an unprivileged user needs root (as a user, the rest of tests/sandbox already runs unprivileged)";
  }
  const setpriv = await which("setpriv");
  if (setpriv === undefined) return "`setpriv` (util-linux) was not found";
  const bwrap = await which("bwrap");
  if (bwrap === undefined) return "bubblewrap (`bwrap`) was not found";
  const user = await ensureUser();
  if (typeof user === "string") return user;
  const probe = await run(setpriv, [
    ...asUser(user),
    "--",
    bwrap,
    "--unshare-user",
    "--unshare-pid",
    "--unshare-net",
    "--ro-bind",
    "/",
    "/",
    "/bin/true",
  ], { clearEnv: true, env: { PATH: "/usr/bin:/bin" } });
  if (probe.code !== 0) {
    return `user namespaces are unavailable to an unprivileged user here (${
      probe.err.trim().split("\n")[0]
    }); enable them (e.g. sysctl kernel.unprivileged_userns_clone=1, user.max_user_namespaces > 0, or kernel.apparmor_restrict_unprivileged_userns=0)`;
  }
  return undefined;
}

function asUser(u: UserIds): string[] {
  return [`--reuid=${u.uid}`, `--regid=${u.gid}`, "--clear-groups"];
}

/** Hard-link `from` as `to` (same file system), else copy it. */
async function linkOrCopy(from: string, to: string): Promise<void> {
  if ((await run("cp", ["-al", from, to])).code === 0) return;
  await run("rm", ["-rf", to]);
  const r = await run("cp", ["-a", from, to]);
  if (r.code !== 0) throw new Error(`could not copy ${from}: ${r.err}`);
}

async function npmCache(): Promise<string> {
  const r = await run(Deno.execPath(), ["info", "--json"], { env: { NO_COLOR: "1" } });
  const info = JSON.parse(r.out) as { npmCache?: string };
  if (info.npmCache === undefined) throw new Error("`deno info --json` names no npm cache");
  return info.npmCache;
}

/**
 * Stage the runtime for the user (call {@link unprivilegedSkipReason} first).
 *
 * @example
 * ```ts
 * await using s = await stageUnprivileged();
 * const r = await s.cli(["--version"]);
 * ```
 */
export async function stageUnprivileged(): Promise<Stage> {
  const user = await ensureUser();
  if (typeof user === "string") throw new Error(user);
  const dir = Deno.realPathSync(await Deno.makeTempDir({ prefix: "toolhost_unpriv_" }));
  Deno.chmodSync(dir, 0o755);
  const own = (p: string) => run("chown", ["-R", `${user.uid}:${user.gid}`, p]);
  try {
    // Root-owned and read-only to the user: links are never chowned (that would chown
    // the originals).
    await linkOrCopy(Deno.execPath(), `${dir}/deno`);
    Deno.mkdirSync(`${dir}/deno_dir`);
    await own(`${dir}/deno_dir`);
    await linkOrCopy(await npmCache(), `${dir}/deno_dir/npm`);
    Deno.mkdirSync(`${dir}/src`);
    const parts = ["cli.ts", "mod.ts", "deno.json", "deno.lock", "lib", "plugins", "harness-kit"];
    const cp = await run("cp", ["-r", ...parts.map((p) => `${REPO_ROOT}/${p}`), `${dir}/src/`]);
    if (cp.code !== 0) throw new Error(`could not copy the sources: ${cp.err}`);
    Deno.mkdirSync(`${dir}/home`, { mode: 0o700 });
    await own(`${dir}/src`);
    await own(`${dir}/home`);
  } catch (e) {
    await Deno.remove(dir, { recursive: true });
    throw e;
  }
  const setpriv = (await which("setpriv"))!;
  return {
    user,
    dir,
    home: `${dir}/home`,
    cli(args, env = {}) {
      const argv = [`${dir}/deno`, "run", "-A", "--cached-only", `${dir}/src/cli.ts`, ...args];
      return run("/bin/sh", [
        "-c",
        'ATTACK_PID=$$; export ATTACK_PID; exec "$@"',
        "sh",
        setpriv,
        ...asUser(user),
        "--",
        ...argv,
      ], {
        clearEnv: true,
        env: {
          PATH: "/usr/bin:/bin",
          HOME: `${dir}/home`,
          DENO_DIR: `${dir}/deno_dir`,
          NO_COLOR: "1",
          ...env,
        },
      });
    },
    async [Symbol.asyncDispose]() {
      await Deno.remove(dir, { recursive: true });
    },
  };
}

/**
 * Give the user a path (recursively).
 *
 * @example
 * ```ts
 * await chownTo(s.user, ws.root);
 * ```
 */
export async function chownTo(user: UserIds, path: string): Promise<void> {
  const r = await run("chown", ["-R", `${user.uid}:${user.gid}`, path]);
  if (r.code !== 0) throw new Error(`chown failed: ${r.err}`);
}
