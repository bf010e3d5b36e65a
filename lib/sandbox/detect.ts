/**
 * Whether confinement can work on this host, decided once per process: Linux, a
 * `bwrap` (bubblewrap) binary, and user namespaces that let it build a sandbox (probed
 * by running one). When it cannot, the reason names the fix — the package to install,
 * the sysctl to set — and confined declarations are refused, never run unconfined.
 *
 * @module
 */

import { spawn, spawnSync } from "node:child_process";
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";

/** The outcome of the probe. */
export type SandboxSupport =
  | { ok: true; bwrap: string; nsenter?: string }
  | { ok: false; reason: string };

/** Options of {@link configureSandbox}. */
export interface SandboxConfig {
  /** Path of `bwrap`. Default: looked up on `PATH` and in /usr/bin, /bin. */
  bwrap?: string;
  /** Pretend the platform is this one (tests of the refusal paths). Default the real one. */
  platform?: string;
}

let config: SandboxConfig = {};
let cached: SandboxSupport | undefined;

/**
 * Change how confinement is detected (tests, embedders); resets the cached decision.
 *
 * @example
 * ```ts
 * import { configureSandbox } from "./detect.ts";
 * configureSandbox({});
 * ```
 */
export function configureSandbox(c: SandboxConfig): void {
  config = { ...c };
  cached = undefined;
  inFlight = undefined;
}

/**
 * Find an executable named `name` in the usual system folders, then on `path`. System
 * folders first: the helpers found here (`bwrap`, `nsenter`) run outside every sandbox,
 * and a `PATH` folder may be one a confined tool can write.
 *
 * @example
 * ```ts
 * import { findExecutable } from "./detect.ts";
 * findExecutable("sh", "/usr/bin:/bin"); // "/usr/bin/sh"
 * ```
 */
export function findExecutable(name: string, path: string | undefined): string | undefined {
  const dirs = ["/usr/bin", "/bin", "/usr/sbin", "/sbin", ...(path ?? "").split(":")];
  for (const d of dirs) {
    if (!d.startsWith("/")) continue;
    const candidate = join(d, name);
    try {
      const st = statSync(candidate);
      if (st.isFile() && (st.mode & 0o111) !== 0) return candidate;
    } catch { /* next */ }
  }
  return undefined;
}

function readSysctl(path: string): string | undefined {
  try {
    return readFileSync(path, "latin1").trim();
  } catch {
    return undefined;
  }
}

/**
 * Why user namespaces are unusable, from the sysctls that switch them off, with the
 * fix. Undefined when none of them is the cause.
 *
 * @example
 * ```ts
 * import { usernsBlocker } from "./detect.ts";
 * usernsBlocker(); // undefined on a host where they are enabled
 * ```
 */
export function usernsBlocker(): string | undefined {
  if (readSysctl("/proc/sys/user/max_user_namespaces") === "0") {
    return "user namespaces are disabled (user.max_user_namespaces = 0); enable them with `sysctl -w user.max_user_namespaces=15000`";
  }
  if (readSysctl("/proc/sys/kernel/unprivileged_userns_clone") === "0") {
    return "unprivileged user namespaces are disabled (kernel.unprivileged_userns_clone = 0); enable them with `sysctl -w kernel.unprivileged_userns_clone=1`";
  }
  if (readSysctl("/proc/sys/kernel/apparmor_restrict_unprivileged_userns") === "1") {
    return "AppArmor restricts unprivileged user namespaces (kernel.apparmor_restrict_unprivileged_userns = 1); allow bwrap with an AppArmor profile (Ubuntu 24.04: install the `bubblewrap` package's profile or `apparmor-profiles`) or set `sysctl -w kernel.apparmor_restrict_unprivileged_userns=0`";
  }
  return undefined;
}

/** What is known before the probe runs: a final answer, or the `bwrap` to probe. */
function preflight(): SandboxSupport | { probe: string; args: string[] } {
  const platform = config.platform ?? process.platform;
  if (platform !== "linux") {
    return {
      ok: false,
      reason:
        `confinement needs Linux namespaces (bubblewrap); this is ${platform}, where confined declarations are refused`,
    };
  }
  const bwrap = config.bwrap ?? findExecutable("bwrap", process.env.PATH);
  if (bwrap === undefined) {
    return {
      ok: false,
      reason:
        "bubblewrap (`bwrap`) was not found; install the `bubblewrap` package (apt-get install bubblewrap, dnf install bubblewrap)",
    };
  }
  // By its path: bwrap would look a bare `true` up on PATH, and a PATH without it (a
  // custom PATH, say) made the probe fail as if user namespaces were unavailable.
  const truePath = findExecutable("true", process.env.PATH);
  if (truePath === undefined) {
    return {
      ok: false,
      reason:
        "the sandbox probe needs the `true` program, found neither on PATH nor in /usr/bin or /bin; install coreutils",
    };
  }
  return { probe: bwrap, args: probeArgs(truePath) };
}

/** The probe: build one sandbox that runs `true` (by its path). */
function probeArgs(truePath: string): string[] {
  return ["--unshare-user", "--unshare-all", "--die-with-parent", "--ro-bind", "/", "/", truePath];
}
/** The same bound for the synchronous and the asynchronous probe. */
const PROBE_TIMEOUT_MS = 30_000;

/** The decision from the probe's outcome (`succeeded`: it exited 0). */
function decide(bwrap: string, succeeded: boolean): SandboxSupport {
  if (!succeeded) {
    return {
      ok: false,
      reason: usernsBlocker() ??
        "bubblewrap could not create a sandbox here (user namespaces unavailable, e.g. inside a container that forbids them); allow user namespaces for this user",
    };
  }
  const nsenter = findExecutable("nsenter", process.env.PATH);
  return nsenter === undefined ? { ok: true, bwrap } : { ok: true, bwrap, nsenter };
}

function detect(): SandboxSupport {
  const pre = preflight();
  if (!("probe" in pre)) return pre;
  const probe = spawnSync(pre.probe, pre.args, { stdio: "ignore", timeout: PROBE_TIMEOUT_MS });
  return decide(pre.probe, probe.status === 0);
}

/** The probe started by {@linkcode prefetchSandboxSupport}, with the config it was for. */
let inFlight: { config: SandboxConfig; answer: Promise<SandboxSupport> } | undefined;

/**
 * Start deciding whether confinement works without blocking: the probe (one `bwrap` run)
 * then overlaps whatever the caller does next (loading a workspace), and the answer is
 * cached exactly as {@linkcode sandboxSupport} would cache it — the same checks, the same
 * probe arguments and bound, the same decision. Nothing is written anywhere: the answer
 * lives in this process only. The promise never rejects; await it before the first
 * {@linkcode sandboxSupport} call to use the answer (a call before it settles probes again,
 * synchronously). The probe is never detached: it ends before the process can (it is
 * awaited, or bwrap's `--die-with-parent` ends it).
 *
 * @example
 * ```ts
 * import { prefetchSandboxSupport, sandboxSupport } from "./detect.ts";
 * const pending = prefetchSandboxSupport();
 * // … other work …
 * await pending;
 * sandboxSupport(); // answered from the cache
 * ```
 */
export function prefetchSandboxSupport(): Promise<SandboxSupport> {
  if (cached) return Promise.resolve(cached);
  if (inFlight?.config === config) return inFlight.answer;
  const forConfig = config;
  const answer = probeAsync().then((s) => {
    // configureSandbox() while the probe ran: this answer is for the old config.
    if (config === forConfig) cached ??= s;
    return s;
  });
  inFlight = { config: forConfig, answer };
  return answer;
}

function probeAsync(): Promise<SandboxSupport> {
  const pre = preflight();
  if (!("probe" in pre)) return Promise.resolve(pre);
  const bwrap = pre.probe;
  const args = pre.args;
  return new Promise((resolve) => {
    let settled = false;
    const finish = (succeeded: boolean) => {
      if (settled) return;
      settled = true;
      resolve(decide(bwrap, succeeded));
    };
    try {
      const child = spawn(bwrap, args, { stdio: "ignore", timeout: PROBE_TIMEOUT_MS });
      child.on("error", () => finish(false));
      child.on("close", (code) => finish(code === 0));
    } catch {
      finish(false);
    }
  });
}

/**
 * Whether confinement works here (probed once, then cached).
 *
 * @example
 * ```ts
 * import { sandboxSupport } from "./detect.ts";
 * const s = sandboxSupport();
 * console.log(s.ok ? s.bwrap : s.reason);
 * ```
 */
export function sandboxSupport(): SandboxSupport {
  cached ??= detect();
  return cached;
}
