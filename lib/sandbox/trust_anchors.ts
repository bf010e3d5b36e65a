/**
 * The workspace's trust anchors stay read-only inside every sandbox: `toolhost.toml`
 * (what is declared), `toolhost.lock` (what may run), the repository's `.git` (its
 * hooks and `core.fsmonitor` run with the user's full authority at the next `git`
 * command, toolhost's `git_*` tools included) and every workspace file a declaration
 * runs — the program of each command tool, session start/stop, hook and extension, and
 * the files their arguments name (operand_pin.ts) — whatever its Artifact. A `write` tool
 * whose Artifact holds them (the workspace root, or a folder holding another tool's
 * script), or a `sandbox_write` path that does, would otherwise rewrite them from inside
 * and so decide what runs later — unconfined, when the other declaration is `host` and
 * no lock or execution path pins that file — a way out of its sandbox.
 *
 * Each anchor that exists and lies strictly inside a writable path is bound read-only
 * again at the place that path shows it, and each folder between the two is bound onto
 * itself (still writable): a mount point can be neither renamed nor removed, so an anchor
 * can neither be written nor swapped by renaming a folder that holds it. Every `.git` git
 * may use from a folder declarations run in is an anchor too (gitAnchors): the one of a
 * folder above the root (the repository git finds from the workspace), and an Artifact's
 * own when the Artifact is a repository of its own — a `write` tool there would otherwise
 * set its `core.fsmonitor` or a hook, which the next `git status` of a `host` tool (or of
 * the user's shell) in that folder runs unconfined.
 * An anchor that does not exist is not bound (a mount point would leave an empty file on
 * the host): anchor_watch.ts moves aside one that a run created.
 *
 * @module
 */

import { realpathSync, statSync } from "node:fs";
import { dirname, isAbsolute, join, relative } from "node:path";
import { operandSteps } from "../pins/operand_pin.ts";
import { extensionsOf } from "../workspace/parse_extensions.ts";
import { pluginsOf } from "../workspace/parse_plugins.ts";
import type { ArgvElement, Workspace } from "../workspace/types.ts";

/** Workspace-relative names of the trust anchors. */
export const TRUST_ANCHORS: readonly string[] = ["toolhost.toml", "toolhost.lock", ".git"];

function real(path: string): string | undefined {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
}

function strictlyWithin(child: string, parent: string): boolean {
  return child.startsWith(parent.endsWith("/") ? parent : `${parent}/`);
}

const declared = new WeakMap<Workspace, string[]>();

/** A command's program (when it is a workspace path) and its operand files, from `cwd`. */
function filesOf(ws: Workspace, cwd: string, command: string, args: readonly ArgvElement[]) {
  const out = operandSteps(args, ws.root, cwd).map((s) => s.abs);
  if (isAbsolute(command)) out.push(command);
  else if (command.includes("/")) out.push(join(cwd, command));
  return out;
}

/**
 * The workspace files the declarations of `ws` run (see the module documentation),
 * regular files only, as declared paths; computed once per workspace.
 */
function declaredPrograms(ws: Workspace): string[] {
  const known = declared.get(ws);
  if (known !== undefined) return known;
  const out: string[] = [];
  for (const a of ws.artifacts.values()) {
    for (const t of [...Object.values(a.agentTools), ...Object.values(a.humanTools)]) {
      if (t.type === "command") out.push(...filesOf(ws, a.cwd, t.command, t.args));
    }
    for (const s of Object.values(a.sessions)) {
      out.push(...filesOf(ws, a.cwd, s.start.command, s.start.args));
      out.push(...filesOf(ws, a.cwd, s.stop.command, s.stop.args));
    }
  }
  for (const e of extensionsOf(ws).decls.values()) {
    if (e.command !== "") out.push(...filesOf(ws, ws.root, e.command, e.args));
  }
  for (const h of pluginsOf(ws).hooks) out.push(...filesOf(ws, ws.root, h.command, h.args));
  const files = [...new Set(out)].filter((f) => {
    try {
      return statSync(f).isFile();
    } catch {
      return false;
    }
  });
  declared.set(ws, files);
  return files;
}

/**
 * Every `.git` git may use when a declaration runs it: git looks for one in its working
 * directory and then in each folder above, and declarations run in the workspace root
 * (extensions, hooks) and in each Artifact's folder (tools, sessions) — an Artifact that
 * is a repository of its own has its `.git` there, below the root. Each path once,
 * nearest folders first.
 *
 * @example
 * ```ts
 * import { loadWorkspaceSync } from "../workspace/load_workspace.ts";
 * import { gitAnchors } from "./trust_anchors.ts";
 * const ws = loadWorkspaceSync("examples");
 * gitAnchors(ws).includes(`${ws.root}/.git`); // true
 * ```
 */
export function gitAnchors(ws: Workspace): string[] {
  const out = new Set<string>();
  const folders = [ws.root, ...[...ws.artifacts.values()].map((a) => a.cwd)];
  for (const from of folders.filter((f) => typeof f === "string" && f !== "")) {
    for (let d = from;; d = dirname(d)) {
      const git = join(d, ".git");
      if (out.has(git)) break; // this folder and those above it are listed
      out.add(git);
      if (d === dirname(d)) break;
    }
  }
  return [...out];
}

/** What {@link anchorBinds} asks of a sandbox. */
export interface AnchorBinds {
  /** Anchors to bind read-only (as the sandbox shows them). */
  readOnly: string[];
  /**
   * Folders between a writable path and an anchor, bound onto themselves (still
   * writable): a mount point cannot be renamed, so no anchor is swapped by renaming a
   * folder that holds it and putting another in its place.
   */
  pinned: string[];
}

/**
 * The binds (paths as a sandbox shows them) that keep every trust anchor of the
 * workspace `ws` from being changed, or swapped, through the `writable` paths.
 *
 * @example
 * ```ts
 * import { loadWorkspaceSync } from "../workspace/load_workspace.ts";
 * import { anchorBinds } from "./trust_anchors.ts";
 * anchorBinds(loadWorkspaceSync("examples"), ["/nonexistent"]); // nothing to bind
 * ```
 */
export function anchorBinds(ws: Workspace, writable: readonly string[]): AnchorBinds {
  const readOnly = new Set<string>();
  const pinned = new Set<string>();
  if (writable.length === 0) return { readOnly: [], pinned: [] };
  const paths = [
    ...TRUST_ANCHORS.map((a) => join(ws.root, a)),
    ...gitAnchors(ws),
    ...declaredPrograms(ws),
  ];
  const anchors = paths.map(real).filter((a) => a !== undefined);
  for (const w of writable) {
    const rw = real(w);
    if (rw === undefined) continue;
    for (const a of anchors) {
      if (!strictlyWithin(a, rw)) continue;
      const shown = join(w, relative(rw, a));
      readOnly.add(shown);
      for (let d = dirname(shown); d !== w && strictlyWithin(d, w); d = dirname(d)) pinned.add(d);
    }
  }
  return { readOnly: [...readOnly], pinned: [...pinned] };
}
