/**
 * The bubblewrap command line of one confined process: new user, PID, IPC, UTS, cgroup
 * and (unless the policy allows the network) network namespaces; no capabilities; its
 * own `/proc`, a private `/tmp`, a minimal `/dev`; the system's program folders and the
 * `/etc` files interpreters need read-only; then the plan's paths at their host paths
 * (parents before children, so a hidden path inside a visible one stays hidden), each
 * bound from a descriptor opened and checked before the spawn (`--bind-fd`, never the
 * path, which could name something else by the time bwrap mounts it: bind_open.ts). Without
 * the network, `NODE_EXTRA_CA_CERTS` is unset: the CA files it names are not shown then.
 *
 * `--dev /dev` is deliberately not used: it makes bwrap nest a second user namespace,
 * which another process of the same user could then not join (`nsenter`), and bound
 * calls join their session's network namespace that way.
 *
 * @module
 */

import { lstatSync, readlinkSync } from "node:fs";
import type { SandboxPolicy } from "./policy.ts";
import { SANDBOX_INFO_FD } from "../process/sandbox_info.ts";
import { runtimeSafeArgv } from "../process/runtime_argv.ts";
import { BIND_FD_BASE, HeldFds } from "../process/bind_fds.ts";
import { mountPins } from "./mount_pins.ts";

/** The resolved paths of one confined declaration (all absolute). */
export interface SandboxPlan {
  /** The policy in effect (a confined mode). */
  policy: SandboxPolicy;
  /** Bound read-only. */
  readable: string[];
  /** Bound writable. */
  writable: string[];
  /** The program's `#!` interpreter outside the system folders, when one is bound. */
  interpreter?: string;
  /** Hidden: folders get an empty tmpfs (read-only once the run's paths inside are bound), files `/dev/null`. */
  hidden: { path: string; folder: boolean }[];
  /**
   * Trust anchors missing when the plan was made that a writable path could create
   * (anchor_watch.ts): looked at, and moved aside, once the runs are over. Default none.
   */
  watch?: string[];
  /**
   * Most bytes each of the private `/tmp` and `/dev/shm` may hold (a declaration's
   * `max_memory_mb`: tmpfs is memory). Default: the kernel's (half the host's RAM).
   */
  tmpfsBytes?: number;
  /**
   * The `PATH` the process gets, with the system program folders appended where missing
   * (a folder of `PATH` outside them is not visible inside). Default: left as it is.
   */
  path?: string;
}

/** What one run adds to its plan. */
export interface SandboxRun {
  /** Program (absolute) and arguments. */
  command: string;
  /** Arguments. */
  args: readonly string[];
  /** Working directory (created empty when no bound path holds it). */
  cwd: string;
  /** Further writable paths of this run: its output and tmp dirs, a session dir. */
  writable: readonly string[];
  /**
   * Host PID of a process inside another sandbox whose network (and user) namespace
   * this one joins instead of getting its own: a session's bound calls reach the
   * harness's loopback. Needs `nsenter`. Default none.
   */
  joinNetOf?: { pid: number; nsenter: string; user: boolean };
}

/** Program folders bound read-only (or re-created as the symlinks they are). */
const SYSTEM_DIRS = ["/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"];
/** `/etc` entries interpreters and libc need. */
const ETC_ALWAYS = [
  "/etc/ld.so.cache",
  "/etc/ld.so.conf",
  "/etc/ld.so.conf.d",
  "/etc/alternatives",
  "/etc/passwd",
  "/etc/group",
  "/etc/nsswitch.conf",
  "/etc/localtime",
  "/etc/timezone",
  "/etc/mime.types",
];
/** `/etc` entries name resolution and TLS need (only when the network is allowed). */
const ETC_NETWORK = [
  "/etc/resolv.conf",
  "/etc/hosts",
  "/etc/host.conf",
  "/etc/gai.conf",
  "/etc/services",
  "/etc/protocols",
  "/etc/ssl",
  "/etc/ca-certificates",
  "/etc/pki",
];
/**
 * Variables unset inside a sandbox without the network: they name CA files under the
 * `ETC_NETWORK` folders, which are not shown then (no TLS without a network), and Node.js
 * reads `NODE_EXTRA_CA_CERTS` at every start-up, printing a warning when the file is
 * missing. Unset, the sandbox shows no less and the tool gets no noise on stderr.
 */
const CA_ENV_WITHOUT_NETWORK = ["NODE_EXTRA_CA_CERTS"];
const DEVICES = ["/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom"];

let systemArgs: string[] | undefined;

function systemMounts(): string[] {
  if (systemArgs !== undefined) return systemArgs;
  const out: string[] = [];
  for (const d of SYSTEM_DIRS) {
    try {
      const st = lstatSync(d);
      if (st.isSymbolicLink()) out.push("--symlink", readlinkSync(d), d);
      else if (st.isDirectory()) out.push("--ro-bind", d, d);
    } catch { /* absent on this system */ }
  }
  for (const e of ETC_ALWAYS) out.push("--ro-bind-try", e, e);
  out.push("--proc", "/proc", "--tmpfs", "/tmp", "--dir", "/dev", "--tmpfs", "/dev/shm");
  for (const d of DEVICES) out.push("--dev-bind-try", d, d);
  out.push(
    "--symlink",
    "/proc/self/fd",
    "/dev/fd",
    "--symlink",
    "/proc/self/fd/0",
    "/dev/stdin",
    "--symlink",
    "/proc/self/fd/1",
    "/dev/stdout",
    "--symlink",
    "/proc/self/fd/2",
    "/dev/stderr",
  );
  systemArgs = out;
  return out;
}

/**
 * The system mounts with the private `/tmp` and `/dev/shm` tmpfs capped at `bytes` each
 * (bwrap `--size`): they are memory, which rlimit mode's resident-memory sum does not see.
 */
function sizedSystemMounts(bytes: number | undefined): string[] {
  const out = systemMounts();
  if (bytes === undefined) return out;
  const size = String(Math.max(1, Math.floor(bytes)));
  const sized = [...out];
  for (const dir of ["/tmp", "/dev/shm"]) {
    const at = sized.findIndex((a, i) => a === "--tmpfs" && sized[i + 1] === dir);
    sized.splice(at, 0, "--size", size);
  }
  return sized;
}

function depth(p: string): number {
  return p.split("/").length;
}

function isWithin(child: string, parent: string): boolean {
  return child === parent || child.startsWith(parent.endsWith("/") ? parent : `${parent}/`);
}

/** A mount: hidden (`args`), or a bind of `path` onto itself (`writable` or read-only). */
type Mount = { path: string; order: number; args?: string[]; writable?: boolean };

function planMounts(plan: SandboxPlan, run: SandboxRun): Mount[] {
  const mounts: Mount[] = [];
  // Same depth: hide first, then bind (an explicitly listed path wins over a hidden one).
  for (const h of plan.hidden) {
    mounts.push({
      path: h.path,
      order: 0,
      args: h.folder ? ["--tmpfs", h.path] : ["--ro-bind", "/dev/null", h.path],
    });
  }
  for (const r of plan.readable) mounts.push({ path: r, order: 1, writable: false });
  for (const w of [...plan.writable, ...run.writable]) {
    mounts.push({ path: w, order: 2, writable: true });
  }
  const byDepth = (a: Mount, b: Mount) => depth(a.path) - depth(b.path) || a.order - b.order;
  mounts.sort(byDepth);
  // No folder that holds a mount inside a writable path may be renamed (mount_pins.ts).
  const pins = mountPins(mounts.map((m) => ({ path: m.path, writable: m.writable === true })));
  for (const p of pins) mounts.push({ path: p, order: 2, writable: true });
  return pins.length === 0 ? mounts : mounts.sort(byDepth);
}

/**
 * Opens a sandbox's bind sources, checked (bind_open.ts): a descriptor per path, in order,
 * undefined for one that is not there (not bound). Throws to refuse the run.
 */
export type BindOpener = (paths: readonly string[]) => (number | undefined)[];

/** A sandbox's command line, and the descriptors its binds are made from. */
export interface SandboxArgv {
  /** The program. */
  command: string;
  /** Its arguments. */
  args: string[];
  /** The bind sources, to be the child's fds from `BIND_FD_BASE`; the receiver closes them. */
  binds?: HeldFds;
}

/**
 * The bind options of `mounts`: `--bind-fd N PATH` / `--ro-bind-fd N PATH` with the child's
 * fds from `BIND_FD_BASE`, one per source `open` found (each, when there is no `open`),
 * and the host descriptors in that order.
 */
function bindArgs(
  mounts: Mount[],
  open: BindOpener | undefined,
): { args: string[]; fds: number[] } {
  const binds = mounts.filter((m) => m.args === undefined);
  const opened = open?.(binds.map((m) => m.path));
  const args: string[] = [];
  const fds: number[] = [];
  let b = 0;
  let n = BIND_FD_BASE;
  for (const m of mounts) {
    if (m.args !== undefined) {
      args.push(...m.args);
      continue;
    }
    const fd = opened === undefined ? -1 : opened[b++];
    if (fd === undefined) continue; // not there: not bound
    if (fd >= 0) fds.push(fd);
    args.push(m.writable ? "--bind-fd" : "--ro-bind-fd", String(n++), m.path);
  }
  return { args, fds };
}

/**
 * The command line that runs `run` confined by `plan` through `bwrap`. Its spawn must
 * open file descriptor 3 as a pipe (bwrap writes the sandbox's init there) and pass the
 * returned `binds` as its fds from `BIND_FD_BASE` (lib/process/bind_fds.ts). Without
 * `open`, nothing is opened and every bind is numbered as if present (a key to compare
 * command lines by, never to spawn).
 *
 * @example
 * ```ts
 * import { sandboxCommand } from "./bwrap_argv.ts";
 * const { command, args } = sandboxCommand("/usr/bin/bwrap", {
 *   policy: { mode: "none", network: false, read: [], write: [] },
 *   readable: [], writable: [], hidden: [],
 * }, { command: "/usr/bin/true", args: [], cwd: "/tmp", writable: [] });
 * console.log(command, args.includes("--unshare-net")); // "/usr/bin/bwrap" true
 * ```
 */
export function sandboxCommand(
  bwrap: string,
  plan: SandboxPlan,
  run: SandboxRun,
  open?: BindOpener,
): SandboxArgv {
  const shareNet = plan.policy.network || run.joinNetOf !== undefined;
  const args = [
    "--unshare-user",
    "--unshare-pid",
    "--unshare-ipc",
    "--unshare-uts",
    "--unshare-cgroup-try",
    ...(shareNet ? [] : ["--unshare-net"]),
    "--die-with-parent",
    // The spawn reads the init's pid and PID namespace there (lib/process/sandbox_info.ts).
    "--info-fd",
    String(SANDBOX_INFO_FD),
    "--cap-drop",
    "ALL",
    ...sizedSystemMounts(plan.tmpfsBytes),
  ];
  if (plan.policy.network) { for (const e of ETC_NETWORK) args.push("--ro-bind-try", e, e); }
  else for (const v of CA_ENV_WITHOUT_NETWORK) args.push("--unsetenv", v);
  if (plan.path !== undefined) args.push("--setenv", "PATH", withSystemPath(plan.path));
  const mounts = planMounts(plan, run);
  const binds = bindArgs(mounts, open);
  const held = open === undefined ? undefined : new HeldFds(binds.fds);
  try {
    args.push(...binds.args);
    return withJoin(bwrap, finish(args, plan, run, mounts), run, held);
  } catch (e) {
    held?.close();
    throw e;
  }
}

/** The options after the mounts, then `--` and the program. */
function finish(args: string[], plan: SandboxPlan, run: SandboxRun, mounts: Mount[]): string[] {
  // A hidden folder's tmpfs turns read-only only now: a run's own paths inside it (the
  // state directory's call, artifact and session dirs) needed their mount points made.
  for (const h of plan.hidden) if (h.folder) args.push("--remount-ro", h.path);
  const cwdShown = mounts.some((m) => m.order > 0 && isWithin(run.cwd, m.path));
  if (!cwdShown) args.push("--dir", run.cwd);
  // The root tmpfs (and the folders bwrap made on it) read-only: nothing to write outside
  // the bound writable paths, the private /tmp and /dev/shm.
  args.push("--remount-ro", "/", "--chdir", run.cwd, "--", run.command, ...run.args);
  return args;
}

/** bwrap with `args`, run through `nsenter` when the run joins another sandbox's network. */
function withJoin(
  bwrap: string,
  args: string[],
  run: SandboxRun,
  binds: HeldFds | undefined,
): SandboxArgv {
  // Deno rewrites an argv naming its own binary (lib/process runtime_argv.ts).
  const safe = runtimeSafeArgv(bwrap, args).args;
  const join = run.joinNetOf;
  const tail = binds === undefined ? {} : { binds };
  if (join === undefined) return { command: bwrap, args: safe, ...tail };
  return {
    command: join.nsenter,
    args: [
      "--preserve-credentials",
      ...(join.user ? ["--user"] : []),
      "--net",
      "--target",
      String(join.pid),
      "--",
      bwrap,
      ...safe,
    ],
    ...tail,
  };
}

/**
 * `path` with `/usr/local/bin`, `/usr/bin` and `/bin` appended where missing.
 *
 * @example
 * ```ts
 * import { withSystemPath } from "./bwrap_argv.ts";
 * withSystemPath("/opt/x/bin:/usr/bin"); // "/opt/x/bin:/usr/bin:/usr/local/bin:/bin"
 * ```
 */
export function withSystemPath(path: string): string {
  const parts = path.split(":").filter((p) => p !== "");
  for (const d of ["/usr/local/bin", "/usr/bin", "/bin"]) if (!parts.includes(d)) parts.push(d);
  return parts.join(":");
}
