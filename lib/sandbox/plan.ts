/**
 * From a policy to the paths a sandbox shows: `none` — the declaration's execution paths
 * (and its program) read-only; `read` — the eval scope's Artifacts read-only; `write` —
 * the declaring Artifact writable and the rest of the scope read-only; `sandbox_read` /
 * `sandbox_write` on top; in every mode toolhost's own harness-kit run-time files, read-only
 * (harness_kit_files.ts); the workspace's `toolhost.toml`, `toolhost.lock`, `.git` and the
 * files its declarations run read-only under every writable path (trust_anchors.ts), and
 * such an anchor that is missing watched so that a run cannot create it (anchor_watch.ts). The
 * state directory and every Artifact outside the scope are hidden wherever a visible path
 * would contain them. Paths keep their host paths, so a tool's context (artifact path,
 * output and tmp dirs, session dir) stays valid inside.
 *
 * @module
 */

import { statSync } from "node:fs";
import { isAbsolute, join, resolve } from "node:path";
import type { Workspace } from "../workspace/types.ts";
import type { SandboxPlan } from "./bwrap_argv.ts";
import type { SandboxPolicy } from "./policy.ts";
import { interpreterPath } from "./interpreter_path.ts";
import { harnessKitFiles } from "./harness_kit_files.ts";
import { anchorBinds, gitAnchors } from "./trust_anchors.ts";
import { watchedAnchors } from "./anchor_watch.ts";
import process from "node:process";

/** What a plan needs besides the policy. */
export interface PlanContext {
  /** The workspace. */
  ws: Workspace;
  /** Artifact ids of the eval scope. */
  scope: readonly string[];
  /** The declaring Artifact (writable under `write`); for extensions and hooks the eval's. */
  owner?: string;
  /** Workspace-relative execution paths. */
  executionPaths: readonly string[];
  /** Absolute path of the program, when known. */
  program?: string;
  /** The state directory (always hidden). */
  stateDir: string;
  /** `PATH` the program's `#!/usr/bin/env NAME` interpreter is looked up on. Default toolhost's. */
  path?: string;
}

const SYSTEM_PREFIXES = ["/usr/", "/bin/", "/sbin/", "/lib/", "/lib64/", "/lib32/"];

function isWithin(child: string, parent: string): boolean {
  return child === parent || child.startsWith(parent.endsWith("/") ? parent : `${parent}/`);
}

function isFolder(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return true; // not there yet: an empty tmpfs hides whatever appears later
  }
}

/**
 * The paths a sandbox under `policy` shows and hides.
 *
 * @example
 * ```ts
 * import { loadWorkspaceSync } from "../workspace/load_workspace.ts";
 * import { sandboxPlan } from "./plan.ts";
 * const ws = loadWorkspaceSync("examples");
 * const plan = sandboxPlan({ mode: "read", network: false, read: [], write: [] }, {
 *   ws, scope: [...ws.artifacts.keys()], executionPaths: [], stateDir: "/tmp/state",
 * });
 * console.log(plan.readable.length > 0);
 * ```
 */
export function sandboxPlan(policy: SandboxPolicy, ctx: PlanContext): SandboxPlan {
  const { ws } = ctx;
  const readable: string[] = ctx.executionPaths.map((p) => join(ws.root, p));
  const writable: string[] = [];
  const program = ctx.program;
  const outside = (p: string) => !SYSTEM_PREFIXES.some((s) => p.startsWith(s));
  if (program !== undefined && outside(program)) readable.push(program);
  const interpreter = program === undefined
    ? undefined
    : interpreterPath(program, ctx.path ?? process.env.PATH);
  if (interpreter !== undefined && outside(interpreter)) readable.push(interpreter);
  if (policy.mode === "read" || policy.mode === "write") {
    for (const id of ctx.scope) {
      const a = ws.artifacts.get(id);
      if (a === undefined) continue;
      if (policy.mode === "write" && id === ctx.owner) writable.push(a.physicalPath);
      else readable.push(a.physicalPath);
    }
  }
  const inScope = new Set(ctx.scope);
  const closed = [resolve(ctx.stateDir)];
  for (const a of ws.artifacts.values()) {
    if (!inScope.has(a.id) || policy.mode === "none") closed.push(a.physicalPath);
  }
  // Never a harness-kit file that lies in the state dir or an Artifact hidden here.
  readable.push(...harnessKitFiles().filter((f) => !closed.some((c) => isWithin(f, c))));
  const abs = (p: string) => isAbsolute(p) ? p : join(ws.root, p);
  readable.push(...policy.read.map(abs));
  writable.push(...policy.write.map(abs));
  // toolhost.toml, toolhost.lock, .git and every declared program and operand file stay
  // read-only under any writable path.
  const anchors = anchorBinds(ws, writable);
  // Missing ones cannot be bound without leaving a file on the host: watched instead.
  const watch = watchedAnchors(ws.root, writable, gitAnchors(ws));
  // A folder inside a read-only path (a child Artifact) cannot be renamed anyway, and a
  // writable self-bind there would make it writable.
  const pinned = anchors.pinned.filter((d) => !readable.some((r) => isWithin(d, r)));
  readable.push(...anchors.readOnly);
  writable.push(...pinned);
  const visible = [...readable, ...writable];
  const hidden: SandboxPlan["hidden"] = [];
  const hide = (path: string) => {
    if (visible.some((v) => isWithin(path, v) && path !== v)) {
      hidden.push({ path, folder: isFolder(path) });
    }
  };
  for (const c of closed) hide(c);
  return {
    policy,
    readable,
    writable,
    hidden,
    watch,
    path: ctx.path ?? process.env.PATH,
    ...(interpreter !== undefined && outside(interpreter) ? { interpreter } : {}),
  };
}
