/**
 * Shared test helpers: temporary workspaces built from a `toolhost.toml` text and a file
 * tree, removed afterwards, plus assertions on declaration errors.
 *
 * @module
 */

import assert from "node:assert/strict";
import { DeclarationError, type DeclarationProblem } from "../../lib/errors/errors.ts";
import { loadWorkspace } from "../../lib/workspace/load_workspace.ts";
import type { Workspace } from "../../lib/workspace/types.ts";

/**
 * One entry of a file tree: file text, a file with a mode, a symlink, or an empty folder.
 */
export type FileSpec =
  | string
  | Uint8Array
  | { text: string; mode?: number }
  | { symlink: string }
  | { dir: true };

/** A file tree: workspace-relative POSIX path → entry. */
export type FileTree = Record<string, FileSpec>;

/** A temporary workspace; `cleanup()` (or `await using`) removes it. */
export interface TempWorkspace extends AsyncDisposable {
  /** Canonical absolute root. */
  root: string;
  /** Remove the whole tree. Idempotent. */
  cleanup(): Promise<void>;
}

/** The smallest valid workspace body: a folder Artifact `app` with an agent eval. */
export const BASE_TOML = `[artifacts.app]
path = "app"

[artifacts.app.evals.review]
audience = "agent"
`;

/** Files for {@link BASE_TOML}. */
export const BASE_FILES: FileTree = { "app/README.md": "# app\n" };

/**
 * Write `files` below `root`, creating parent folders.
 *
 * @example
 * ```ts
 * import { writeTree } from "./workspace.ts";
 * writeTree("/tmp/ws", { "app/run.sh": { text: "#!/bin/sh\n", mode: 0o755 } });
 * ```
 */
export function writeTree(root: string, files: FileTree): void {
  for (const [rel, spec] of Object.entries(files)) {
    const abs = `${root}/${rel}`;
    const parent = abs.slice(0, abs.lastIndexOf("/"));
    Deno.mkdirSync(parent, { recursive: true });
    if (typeof spec === "string") Deno.writeTextFileSync(abs, spec);
    else if (spec instanceof Uint8Array) Deno.writeFileSync(abs, spec);
    else if ("symlink" in spec) Deno.symlinkSync(spec.symlink, abs);
    else if ("dir" in spec) Deno.mkdirSync(abs, { recursive: true });
    else {
      Deno.writeTextFileSync(abs, spec.text);
      if (spec.mode !== undefined) Deno.chmodSync(abs, spec.mode);
    }
  }
}

/**
 * Create a temporary workspace holding `toml` as toolhost.toml and `files`.
 *
 * @example
 * ```ts
 * import { BASE_TOML, tempWorkspace } from "./workspace.ts";
 * await using ws = await tempWorkspace(BASE_TOML, { "app/README.md": "hi" });
 * console.log(ws.root);
 * ```
 */
export async function tempWorkspace(
  toml: string | Uint8Array,
  files: FileTree = {},
): Promise<TempWorkspace> {
  const root = Deno.realPathSync(await Deno.makeTempDir({ prefix: "toolhost_test_" }));
  writeTree(root, { ...files, "toolhost.toml": toml });
  let removed = false;
  const cleanup = async () => {
    if (removed) return;
    removed = true;
    await Deno.remove(root, { recursive: true });
  };
  return { root, cleanup, [Symbol.asyncDispose]: cleanup };
}

/**
 * Run `fn` with a temporary workspace, removed afterwards (also when `fn` throws).
 *
 * @example
 * ```ts
 * import { BASE_FILES, BASE_TOML, withWorkspace } from "./workspace.ts";
 * await withWorkspace(BASE_TOML, BASE_FILES, (root) => console.log(root));
 * ```
 */
export async function withWorkspace<T>(
  toml: string | Uint8Array,
  files: FileTree,
  fn: (root: string) => T | Promise<T>,
): Promise<T> {
  const ws = await tempWorkspace(toml, files);
  try {
    return await fn(ws.root);
  } finally {
    await ws.cleanup();
  }
}

/**
 * Load `toml` + `files` in a temporary workspace and return the workspace.
 *
 * @example
 * ```ts
 * import { BASE_FILES, BASE_TOML, loadFrom } from "./workspace.ts";
 * const ws = await loadFrom(BASE_TOML, BASE_FILES);
 * ```
 */
export function loadFrom(toml: string, files: FileTree = BASE_FILES): Promise<Workspace> {
  return withWorkspace(toml, files, (root) => loadWorkspace(root));
}

/**
 * Load `toml` + `files` and return the declaration problems (empty when it loads).
 * Any other error is rethrown.
 *
 * @example
 * ```ts
 * import { BASE_FILES, problemsOf } from "./workspace.ts";
 * const problems = await problemsOf("[artifacts.app]\npth = 1\n", BASE_FILES);
 * ```
 */
export function problemsOf(
  toml: string,
  files: FileTree = BASE_FILES,
): Promise<DeclarationProblem[]> {
  return withWorkspace(toml, files, async (root) => {
    try {
      await loadWorkspace(root);
      return [];
    } catch (e) {
      if (e instanceof DeclarationError) return e.problems;
      throw e;
    }
  });
}

/** What a declaration problem must look like. */
export interface ExpectedProblem {
  /** Exact TOML key path. */
  keyPath: string;
  /** The message must match this. */
  message?: RegExp;
  /** Exact 1-based line, when the test wants to pin it. */
  line?: number;
}

/**
 * Assert that loading fails with a DeclarationError holding a problem at `want.keyPath`
 * (with a line number) whose message matches. Returns every problem.
 *
 * @example
 * ```ts
 * import { BASE_FILES, expectProblem } from "./workspace.ts";
 * await expectProblem("[artifacts.app]\npth = 1\n", BASE_FILES, { keyPath: "artifacts.app.pth" });
 * ```
 */
export async function expectProblem(
  toml: string,
  files: FileTree,
  want: ExpectedProblem,
): Promise<DeclarationProblem[]> {
  const problems = await problemsOf(toml, files);
  const shown = problems.map((p) => `${p.keyPath}: ${p.message}`).join("\n");
  const atKey = problems.filter((p) => p.keyPath === want.keyPath);
  assert.ok(atKey.length > 0, `expected a problem at ${want.keyPath}; got:\n${shown || "(none)"}`);
  const hit = atKey.find((p) => !want.message || want.message.test(p.message));
  assert.ok(hit, `no problem at ${want.keyPath} matches ${want.message}; got:\n${shown}`);
  assert.equal(typeof hit.line, "number", `no line for ${want.keyPath}`);
  if (want.line !== undefined) assert.equal(hit.line, want.line, shown);
  return problems;
}

/**
 * Assert that `toml` + `files` load without declaration problems; returns the workspace.
 *
 * @example
 * ```ts
 * import { BASE_FILES, BASE_TOML, expectLoads } from "./workspace.ts";
 * const ws = await expectLoads(BASE_TOML, BASE_FILES);
 * ```
 */
export async function expectLoads(toml: string, files: FileTree = BASE_FILES): Promise<Workspace> {
  const problems = await problemsOf(toml, files);
  assert.deepEqual(
    problems.map((p) => `${p.keyPath}: ${p.message}`),
    [],
    "expected the workspace to load",
  );
  return await loadFrom(toml, files);
}

/**
 * A TOML basic string literal for `s` (JSON escapes are valid TOML basic-string escapes
 * for everything JSON.stringify emits).
 *
 * @example
 * ```ts
 * import { tomlString } from "./workspace.ts";
 * tomlString('say "hi"'); // "\"say \\\"hi\\\"\""
 * ```
 */
export function tomlString(s: string): string {
  return JSON.stringify(s);
}

/**
 * A TOML inline value for a JSON-like value (objects become inline tables).
 *
 * @example
 * ```ts
 * import { tomlValue } from "./workspace.ts";
 * tomlValue({ type: "object", required: ["q"] }); // '{ type = "object", required = ["q"] }'
 * ```
 */
export function tomlValue(v: unknown): string {
  if (typeof v === "string") return tomlString(v);
  if (typeof v === "number" || typeof v === "boolean") return String(v);
  if (Array.isArray(v)) return `[${v.map(tomlValue).join(", ")}]`;
  if (typeof v === "object" && v !== null) {
    const body = Object.entries(v).map(([k, x]) => `${tomlString(k)} = ${tomlValue(x)}`);
    return `{ ${body.join(", ")} }`;
  }
  throw new Error(`no TOML form for ${typeof v}`);
}

/**
 * A `[artifacts.ART.views.agent_tools.NAME]` (or other view) table with `fields`
 * (`undefined` fields are left out).
 *
 * @example
 * ```ts
 * import { toolTable } from "./workspace.ts";
 * toolTable("app", "read", { builtin: "read" });
 * ```
 */
export function toolTable(
  artifact: string,
  name: string,
  fields: Record<string, unknown>,
  view: "agent_tools" | "human_tools" = "agent_tools",
): string {
  const lines = Object.entries(fields)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${k} = ${tomlValue(v)}`);
  return `\n[artifacts.${artifact}.views.${view}.${name}]\n${lines.join("\n")}\n`;
}

/** The fields of a valid json command tool (`sh` on PATH). */
export const JSON_TOOL: Readonly<Record<string, unknown>> = Object.freeze({
  description: "Run a json tool on {artifactName}.",
  protocol: "json",
  command: "sh",
  args: ["-c", "true"],
});

/**
 * Does anything exist at `path`? (lstat, so dangling symlinks count.)
 *
 * @example
 * ```ts
 * import { exists } from "./workspace.ts";
 * exists("/tmp"); // true
 * ```
 */
export function exists(path: string): boolean {
  try {
    Deno.lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

/**
 * Every workspace-relative path below `root` (files, folders, symlinks), sorted.
 *
 * @example
 * ```ts
 * import { listTree } from "./workspace.ts";
 * listTree("/tmp/ws"); // ["app", "app/README.md", "toolhost.toml"]
 * ```
 */
export function listTree(root: string, rel = ""): string[] {
  const out: string[] = [];
  for (const e of Deno.readDirSync(rel ? `${root}/${rel}` : root)) {
    const r = rel ? `${rel}/${e.name}` : e.name;
    out.push(r);
    if (e.isDirectory) out.push(...listTree(root, r));
  }
  return out.sort();
}
