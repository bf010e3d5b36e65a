/**
 * `files_patch`: apply a unified diff to one or more files, all or nothing.
 *
 * 1. Plan: every file is resolved, read and patched in memory; any problem (a path
 *    outside the Artifact, a symlink, a hunk that does not apply, a file that exists or
 *    is missing against the patch) fails the call before anything changes.
 * 2. Stage: new contents go to temporary files (`O_EXCL|O_NOFOLLOW`) in each target's
 *    verified folder; missing parent folders of created files are made now.
 * 3. Commit: per file, the old file is renamed to a backup beside it and the staged file
 *    renamed into place. If any step fails, every committed file is restored from its
 *    backup (created files removed, created folders removed) before the error returns.
 *
 * @module
 */

import type { Protector } from "../redact/types.ts";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import { Buffer } from "node:buffer";
import { PathError, ToolhostError } from "../errors/errors.ts";
import { jsonResult, type ToolResult } from "../results/types.ts";
import { type ResolvedPath, resolveLogicalPath } from "../paths/resolve.ts";
import { withSandbox } from "../builtins/common.ts";
import type { BuiltinEnv } from "../builtins/context.ts";
import type { Sandbox } from "../paths/sandbox.ts";
import { NATIVE_LIMITS } from "./limits.ts";
import { applyHunks, MAX_PATCH_COMPARISONS, type PatchBudget } from "./patch_apply.ts";
import { type FilePatch, parseUnifiedDiff } from "./patch_parse.ts";
import {
  closeTarget,
  currentId,
  discardTemp,
  openWriteTarget,
  readCurrent,
  removeCreated,
  renameIn,
  rewriteInPlace,
  stageTemp,
  type WriteTarget,
} from "./write_fs.ts";
import { NEW_FILE_MODE } from "./write.ts";
import { showPath } from "../paths/show_path.ts";

/** Fault injection for tests: called before file `index` (0-based) is committed. */
export interface PatchHooks {
  /** Throw to simulate a failure midway through the commit. */
  beforeCommit?(index: number): void;
}

/** One planned file change. */
interface Planned {
  fp: FilePatch;
  r: ResolvedPath;
  box?: Sandbox;
  /** The workspace root, whose trust anchors no patch changes. */
  wsRoot: string;
  t?: WriteTarget;
  old: { bytes: Uint8Array; mode: number; id: string } | null;
  next: Uint8Array | null;
  /** Protected values: a hunk never matches a line holding (part of) one. */
  protect?: Protector;
  /** Line comparisons the whole patch may still spend placing hunks (shared). */
  budget: PatchBudget;
  tmp?: string;
  backup?: string;
  committed: boolean;
}

function fail(i: number, n: number, path: string, why: string): never {
  throw new ToolhostError(
    "TOOL_ERROR",
    `The patch was not applied (no file changed): file ${i + 1} of ${n} (${
      showPath(path)
    }): ${why}`,
  );
}

function plan(p: Planned, i: number, n: number): void {
  const { fp, r } = p;
  let t: WriteTarget;
  try {
    t = openWriteTarget(p.box!, r, false, p.wsRoot);
  } catch (e) {
    if (fp.action === "create" && e instanceof PathError && /does not exist/.test(e.message)) {
      return planNew(p, i, n);
    }
    throw e;
  }
  p.t = t;
  const cur = readCurrent(t);
  if (fp.action === "create" && cur !== null) {
    fail(i, n, r.path, "the patch creates it, but it exists");
  }
  if (fp.action !== "create" && cur === null) fail(i, n, r.path, "it does not exist");
  if (fp.action === "delete" && t.inPlace) {
    fail(i, n, r.path, "a file Artifact's file cannot be deleted");
  }
  p.old = cur;
  planContent(p, i, n, cur?.bytes ?? new Uint8Array(0));
}

function planNew(p: Planned, i: number, n: number): void {
  p.old = null;
  planContent(p, i, n, new Uint8Array(0));
}

function planContent(p: Planned, i: number, n: number, bytes: Uint8Array): void {
  const text = Buffer.from(bytes).toString("utf8");
  if (!Buffer.from(text, "utf8").equals(Buffer.from(bytes))) {
    fail(i, n, p.r.path, "it is not UTF-8 text");
  }
  const out = applyHunks(text, p.fp, p.protect, p.budget);
  if (!out.ok && out.costly) {
    fail(
      i,
      n,
      p.r.path,
      `hunk ${out.hunk} could not be placed within ${MAX_PATCH_COMPARISONS} line comparisons; ` +
        "state the hunks' line numbers exactly",
    );
  }
  if (!out.ok) fail(i, n, p.r.path, `hunk ${out.hunk} does not apply`);
  if (p.fp.action === "delete") {
    if (out.text !== "") fail(i, n, p.r.path, "the deletion does not remove the whole file");
    p.next = null;
    return;
  }
  p.next = Buffer.from(out.text, "utf8");
  if (p.next.length > NATIVE_LIMITS.writeMaxFileBytes) {
    fail(i, n, p.r.path, "the result would be too large");
  }
}

function stage(p: Planned): void {
  if (p.t === undefined) p.t = openWriteTarget(p.box!, p.r, true, p.wsRoot);
  if (p.next !== null && !p.t.inPlace) p.tmp = stageTemp(p.t, p.next, p.old?.mode ?? NEW_FILE_MODE);
}

function commit(p: Planned): void {
  const t = p.t!;
  if (currentId(t) !== (p.old?.id ?? null)) {
    throw new PathError(`${showPath(p.r.path)} changed during the patch.`);
  }
  if (t.inPlace) {
    rewriteInPlace(t, p.next!, p.old!.id);
    p.committed = true;
    return;
  }
  if (p.old !== null) {
    p.backup = `.toolhost-${randomBytes(8).toString("hex")}.bak`;
    renameIn(t, t.name, p.backup);
  }
  p.committed = true;
  if (p.tmp !== undefined) {
    renameIn(t, p.tmp, t.name);
    p.tmp = undefined;
  }
}

function rollback(p: Planned): void {
  const t = p.t;
  if (!t) return;
  if (p.tmp !== undefined) discardTemp(t, p.tmp);
  if (p.committed) {
    try {
      if (t.inPlace) rewriteInPlace(t, p.old!.bytes, p.old!.id);
      else if (p.backup !== undefined) renameIn(t, p.backup, t.name);
      else fs.unlinkSync(`${t.dir.base}/${t.name}`);
    } catch { /* best effort: reported below */ }
  }
  removeCreated(t);
}

function finish(p: Planned): void {
  if (p.t && p.backup !== undefined) {
    try {
      fs.unlinkSync(`${p.t.dir.base}/${p.backup}`);
    } catch { /* already gone */ }
  }
}

/** Open every file's sandbox (nested), then run `body` with all of them open. */
async function withAll<T>(ps: Planned[], env: BuiltinEnv, i: number, body: () => T): Promise<T> {
  if (i === ps.length) return body();
  return await withSandbox(ps[i].r, env, (box) => {
    ps[i].box = box;
    return withAll(ps, env, i + 1, body);
  });
}

function planAll(ps: Planned[]): void {
  const n = ps.length;
  ps.forEach((p, i) => {
    try {
      plan(p, i, n);
    } catch (e) {
      if (e instanceof ToolhostError && !/no file changed/.test(e.message)) {
        fail(i, n, p.r.path, e.message);
      }
      throw e;
    }
  });
}

function transact(ps: Planned[], hooks: PatchHooks): void {
  try {
    planAll(ps);
    ps.forEach((p) => stage(p));
    ps.forEach((p, i) => {
      hooks.beforeCommit?.(i);
      commit(p);
    });
    ps.forEach(finish);
  } catch (e) {
    for (const p of [...ps].reverse()) rollback(p);
    if (e instanceof ToolhostError && /no file changed/.test(e.message)) throw e;
    const why = e instanceof ToolhostError ? ` (${e.message})` : "";
    throw new ToolhostError(
      "TOOL_ERROR",
      `The patch was not applied; every file was restored${why}.`,
    );
  } finally {
    for (const p of ps) if (p.t) closeTarget(p.t);
  }
}

/**
 * Run `files_patch`: `{artifactId, files: [{path, resolvedArtifactId, action, hunks}]}`.
 *
 * @example
 * ```ts
 * import { runFilesPatch } from "./patch.ts";
 * // await runFilesPatch({ patch: "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n" }, env);
 * ```
 */
export async function runFilesPatch(
  args: { patch: string },
  env: BuiltinEnv,
  hooks: PatchHooks = {},
): Promise<ToolResult> {
  const files = parseUnifiedDiff(args.patch);
  if (files.length > NATIVE_LIMITS.patchMaxFiles) {
    throw new ToolhostError(
      "TOOL_ERROR",
      `The patch changes ${files.length} files; at most ${NATIVE_LIMITS.patchMaxFiles} are allowed per call.`,
    );
  }
  const budget: PatchBudget = { left: MAX_PATCH_COMPARISONS };
  const ps: Planned[] = files.map((fp, i) => {
    try {
      const r = resolveLogicalPath(env, fp.path);
      const wsRoot = env.workspace.root;
      const protect = env.protect;
      return { fp, r, wsRoot, old: null, next: null, protect, budget, committed: false };
    } catch (e) {
      fail(
        i,
        files.length,
        "(invalid path)",
        e instanceof ToolhostError ? e.message : "invalid path",
      );
    }
  });
  const seen = new Set<string>();
  ps.forEach((p, i) => {
    if (seen.has(p.r.path)) fail(i, ps.length, p.r.path, "the patch names this file twice");
    seen.add(p.r.path);
  });
  await withAll(ps, env, 0, () => transact(ps, hooks));
  return jsonResult({
    artifactId: env.declaring.id,
    files: ps.map((p) => ({
      path: p.r.path,
      resolvedArtifactId: p.r.resolvedArtifactId,
      action: p.fp.action === "modify"
        ? "modified"
        : p.fp.action === "create"
        ? "created"
        : "deleted",
      hunks: p.fp.hunks.length,
    })),
  });
}
