/**
 * Confinement policy as declared in `toolhost.toml`: the keys `sandbox`, `network`,
 * `sandbox_read` and `sandbox_write` on command tools, session tables, `[extensions.X]`
 * and hook entries, and the workspace-wide `[sandbox]` table (`default`, `network`).
 * Problems name the TOML key path; values are never echoed.
 *
 * @module
 */

import { isAbsolute, normalize } from "node:path";
import { checkKeys, isTable, type Problems, type Table } from "../workspace/problems.ts";
import { relPathProblem } from "../workspace/rel_path.ts";

/** What a confined process may see: see the README's "Confinement" table. */
export type SandboxMode = "none" | "read" | "write" | "host";

/** The modes, in order from the tightest. */
export const SANDBOX_MODES: readonly SandboxMode[] = ["none", "read", "write", "host"];

/** The policy keys a declaration table accepts. */
export const SANDBOX_KEYS: readonly string[] = [
  "sandbox",
  "network",
  "sandbox_read",
  "sandbox_write",
];

/** A declaration's own policy keys, as written (absent keys are undefined). */
export interface DeclaredSandbox {
  /** `sandbox`. */
  mode?: SandboxMode;
  /** `network`. */
  network?: boolean;
  /** `sandbox_read`: extra read-only paths (workspace-relative or absolute). */
  read?: string[];
  /** `sandbox_write`: extra writable paths (workspace-relative or absolute). */
  write?: string[];
}

/** The workspace-wide `[sandbox]` table. */
export interface WorkspaceSandbox {
  /** `default`: the mode of declarations that set none. Default `"host"`. */
  default?: SandboxMode;
  /** `network`: whether confined declarations get the network by default. Default false. */
  network?: boolean;
}

/**
 * The policy in effect for one declaration, the workspace default applied. Stored on
 * the declaration (`sandbox`) so the lock pins it with the rest of the declaration.
 */
export interface SandboxPolicy {
  /** The mode in effect. */
  mode: SandboxMode;
  /** Whether the network namespace is shared with the host (confined modes only). */
  network: boolean;
  /** Extra read-only paths, as declared. */
  read: string[];
  /** Extra writable paths, as declared. */
  write: string[];
}

/** Keys of the top-level `[sandbox]` table. */
const WORKSPACE_KEYS = ["default", "network"] as const;

function readMode(p: Problems, at: string, v: unknown): SandboxMode | undefined {
  if (v === undefined) return undefined;
  if (typeof v !== "string" || !(SANDBOX_MODES as readonly string[]).includes(v)) {
    p.add(at, 'must be "none", "read", "write" or "host"');
    return undefined;
  }
  return v as SandboxMode;
}

function readBool(p: Problems, at: string, v: unknown): boolean | undefined {
  if (v === undefined) return undefined;
  if (typeof v !== "boolean") {
    p.add(at, "must be true or false");
    return undefined;
  }
  return v;
}

function readPaths(p: Problems, at: string, v: unknown): string[] | undefined {
  if (v === undefined) return undefined;
  if (!Array.isArray(v) || v.some((e) => typeof e !== "string")) {
    p.add(at, "must be an array of paths (workspace-relative or absolute)");
    return undefined;
  }
  const out: string[] = [];
  (v as string[]).forEach((e, i) => {
    const why = pathProblem(e);
    if (why) p.add(`${at}[${i}]`, why);
    else out.push(e);
  });
  return out;
}

/** Trees whose objects a read-only bind does not make read-only (reached through them). */
const LIVE_TREES = ["/proc", "/sys", "/dev", "/run"];

function pathProblem(e: string): string | undefined {
  if (e === "" || e.includes("\0")) return "must be a nonempty path without NUL";
  if (isAbsolute(e)) {
    if (normalize(e) !== e || e === "/") {
      return "must be a normalized absolute path other than `/` (no `.`, `..` or `//`)";
    }
    const live = LIVE_TREES.find((t) => e === t || e.startsWith(`${t}/`));
    if (live !== undefined) {
      return `must not be in \`${live}\`: a bind of the kernel's or services' live objects ` +
        "there (another process's root, sockets, devices) is not read-only; the sandbox " +
        "has its own /proc and /dev";
    }
    return undefined;
  }
  const why = relPathProblem(e);
  return why ? `must be a workspace-relative or absolute path: it ${why}` : undefined;
}

/**
 * Read a declaration's policy keys (`sandbox`, `network`, `sandbox_read`,
 * `sandbox_write`). Returns undefined when none is set.
 *
 * @example
 * ```ts
 * import { Problems } from "../workspace/problems.ts";
 * import { readDeclaredSandbox } from "./policy.ts";
 * readDeclaredSandbox(new Problems("toolhost.toml", ""), "extensions.fs", { sandbox: "read" });
 * // { mode: "read" }
 * ```
 */
export function readDeclaredSandbox(
  p: Problems,
  at: string,
  t: Table,
): DeclaredSandbox | undefined {
  const out: DeclaredSandbox = {};
  const mode = readMode(p, `${at}.sandbox`, t.sandbox);
  const network = readBool(p, `${at}.network`, t.network);
  const read = readPaths(p, `${at}.sandbox_read`, t.sandbox_read);
  const write = readPaths(p, `${at}.sandbox_write`, t.sandbox_write);
  if (mode !== undefined) out.mode = mode;
  if (network !== undefined) out.network = network;
  if (read !== undefined) out.read = read;
  if (write !== undefined) out.write = write;
  return Object.keys(out).length === 0 ? undefined : out;
}

/**
 * Read the top-level `[sandbox]` table. Returns undefined when it is absent.
 *
 * @example
 * ```ts
 * import { Problems } from "../workspace/problems.ts";
 * import { readWorkspaceSandbox } from "./policy.ts";
 * readWorkspaceSandbox(new Problems("toolhost.toml", ""), { default: "read" }); // { default: "read" }
 * ```
 */
export function readWorkspaceSandbox(p: Problems, raw: unknown): WorkspaceSandbox | undefined {
  if (raw === undefined) return undefined;
  if (!isTable(raw)) {
    p.add("sandbox", "must be a table: `[sandbox]` with `default` and `network`");
    return undefined;
  }
  checkKeys(p, "sandbox", raw, WORKSPACE_KEYS);
  const out: WorkspaceSandbox = {};
  const mode = readMode(p, "sandbox.default", raw.default);
  const network = readBool(p, "sandbox.network", raw.network);
  if (mode !== undefined) out.default = mode;
  if (network !== undefined) out.network = network;
  return out;
}

/**
 * The policy in effect for a declaration: its own keys, else the workspace default,
 * else `host`. Confined means no network unless `network = true` is set. Records a
 * problem for extra paths or `network` on a declaration that runs unconfined (they
 * would silently do nothing).
 *
 * @example
 * ```ts
 * import { Problems } from "../workspace/problems.ts";
 * import { effectiveSandbox } from "./policy.ts";
 * const p = new Problems("toolhost.toml", "");
 * effectiveSandbox(p, "extensions.fs", { mode: "read" }, { network: true });
 * // { mode: "read", network: true, read: [], write: [] }
 * ```
 */
export function effectiveSandbox(
  p: Problems,
  at: string,
  own: DeclaredSandbox | undefined,
  ws: WorkspaceSandbox | undefined,
): SandboxPolicy {
  const mode = own?.mode ?? ws?.default ?? "host";
  if (mode === "host") {
    for (
      const [key, set] of [
        ["network", own?.network],
        ["sandbox_read", own?.read],
        ["sandbox_write", own?.write],
      ] as const
    ) {
      if (set !== undefined) {
        p.add(`${at}.${key}`, 'has no effect: this runs unconfined (sandbox = "host")');
      }
    }
  }
  return {
    mode,
    network: mode === "host" ? true : own?.network ?? ws?.network ?? false,
    read: own?.read ?? [],
    write: own?.write ?? [],
  };
}
