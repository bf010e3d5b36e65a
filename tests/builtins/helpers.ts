/**
 * Test helpers for the sandbox and built-ins: temporary trees, hand-built Artifact views,
 * workspaces and environments, and result accessors.
 *
 * @module
 */

import fs from "node:fs";
import path from "node:path";
import assert from "node:assert/strict";
import type { ArtifactView, BuiltinEnv } from "../../lib/builtins/context.ts";
import type {
  Artifact,
  BuiltinName,
  BuiltinToolDecl,
  Workspace,
} from "../../lib/workspace/types.ts";
import type { ToolResult } from "../../lib/results/types.ts";

/** A file tree: text/bytes for files, `{ symlink }` for links, `{ dir: true }` for folders. */
export type Tree = Record<string, string | Uint8Array | { symlink: string } | { dir: true }>;

/**
 * Create a temporary folder (realpath) holding `tree`; remove it with `rm`.
 *
 * @example
 * ```ts
 * const t = makeTree({ "a.txt": "hi\n" });
 * t.rm();
 * ```
 */
export function makeTree(tree: Tree = {}): { root: string; rm: () => void } {
  const root = fs.realpathSync(Deno.makeTempDirSync({ prefix: "toolhost-builtins-" }));
  writeTree(root, tree);
  return { root, rm: () => fs.rmSync(root, { recursive: true, force: true }) };
}

/**
 * Write a tree beneath `root`.
 *
 * @example
 * ```ts
 * writeTree("/tmp/x", { "d/b.txt": "b" });
 * ```
 */
export function writeTree(root: string, tree: Tree): void {
  for (const [rel, spec] of Object.entries(tree)) {
    const p = path.join(root, rel);
    fs.mkdirSync(path.dirname(p), { recursive: true });
    if (typeof spec === "string" || spec instanceof Uint8Array) fs.writeFileSync(p, spec);
    else if ("symlink" in spec) fs.symlinkSync(spec.symlink, p);
    else fs.mkdirSync(p, { recursive: true });
  }
}

/**
 * A folder Artifact view.
 *
 * @example
 * ```ts
 * folderView("app", "/ws/app");
 * ```
 */
export function folderView(id: string, physicalPath: string): ArtifactView {
  return { id, kind: "folder", physicalPath, cwd: physicalPath };
}

/**
 * A file Artifact view (cwd = its folder).
 *
 * @example
 * ```ts
 * fileView("notes", "/ws/docs/notes.md");
 * ```
 */
export function fileView(id: string, physicalFile: string): ArtifactView {
  return { id, kind: "file", physicalPath: physicalFile, cwd: path.dirname(physicalFile) };
}

/**
 * A minimal Artifact record for a workspace.
 *
 * @example
 * ```ts
 * artifact("app", "folder", "/ws", "app");
 * ```
 */
export function artifact(
  id: string,
  kind: "folder" | "file",
  root: string,
  relPath: string,
  extra: Partial<Artifact> = {},
): Artifact {
  const physicalPath = path.join(root, relPath);
  return {
    id,
    kind,
    relPath,
    physicalPath,
    cwd: kind === "folder" ? physicalPath : path.dirname(physicalPath),
    children: {},
    evals: {},
    agentTools: {},
    humanTools: {},
    sessions: {},
    artifactRoots: [],
    keyPath: `artifacts.${id}`,
    ...extra,
  };
}

/**
 * A workspace from Artifact records.
 *
 * @example
 * ```ts
 * workspace("/ws", [artifact("app", "folder", "/ws", "app")]);
 * ```
 */
export function workspace(root: string, artifacts: Artifact[]): Workspace {
  return {
    root,
    manifestPath: path.join(root, "toolhost.toml"),
    artifacts: new Map(artifacts.map((a) => [a.id, a])),
    evals: new Map(),
    extra: {},
  };
}

/**
 * A built-in environment for a declaring view.
 *
 * @example
 * ```ts
 * env(folderView("app", "/ws/app"), { rules: { view: folderView("spec", "/ws/app/rules"), admitted: true } });
 * ```
 */
export function env(
  declaring: ArtifactView,
  descendants: Record<string, { view: ArtifactView; admitted: boolean }> = {},
  ws?: Workspace,
  signal?: AbortSignal,
): BuiltinEnv {
  return {
    declaring,
    descendants: new Map(Object.entries(descendants)),
    workspace: ws ?? workspace(path.dirname(declaring.physicalPath), []),
    signal,
  };
}

/**
 * A built-in declaration.
 *
 * @example
 * ```ts
 * decl("read", ["README.md"]);
 * ```
 */
export function decl(builtin: BuiltinName, args?: string[]): BuiltinToolDecl {
  return {
    type: "builtin",
    name: builtin,
    builtin,
    ...(args ? { args } : {}),
    description: "test",
    keyPath: `artifacts.test.views.agent_tools.${builtin}`,
  };
}

/** Any JSON data. */
// deno-lint-ignore no-explicit-any
export type Json = any;

/**
 * The data of a successful single-json-block result.
 *
 * @example
 * ```ts
 * // const data = ok(await runBuiltin(...));
 * ```
 */
export function ok(r: ToolResult): Json {
  assert.equal(r.isError, false, JSON.stringify(r).slice(0, 500));
  assert.equal(r.content.length, 1);
  const b = r.content[0];
  assert.equal(b.type, "json");
  return (b as { data: unknown }).data;
}

/**
 * The text of an error result.
 *
 * @example
 * ```ts
 * // const text = err(await runBuiltin(...));
 * ```
 */
export function err(r: ToolResult): string {
  assert.equal(r.isError, true, JSON.stringify(r).slice(0, 500));
  assert.equal(r.content.length, 1);
  const b = r.content[0];
  assert.equal(b.type, "text");
  return (b as { text: string }).text;
}

/**
 * Assert a result mentions no physical path below `root` (nor `root` itself).
 *
 * @example
 * ```ts
 * // noPhysical(result, t.root);
 * ```
 */
export function noPhysical(r: ToolResult, ...roots: string[]): void {
  const s = JSON.stringify(r);
  for (const root of roots) assert.ok(!s.includes(root), "result leaks a physical path");
  assert.ok(!s.includes("/tmp/"), "result leaks a /tmp path");
  assert.ok(!s.includes("/proc/"), "result leaks a /proc path");
}
