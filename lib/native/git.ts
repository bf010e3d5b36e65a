/**
 * `git_status` and `git_diff`: git run with argument arrays (never a shell) in the
 * declaring Artifact's folder, limited by pathspec to that Artifact (descendants the eval
 * does not admit excluded; a file Artifact limited to its file), with paths reported
 * relative to the Artifact. No configuration can make git run a program: system and global
 * configuration are ignored, fixed keys are overridden, submodules are not entered, every
 * transport is refused, and a repository whose configuration defines filter or diff
 * driver programs, config hooks or includes is refused before status or diff runs (see
 * git_safety.ts). Output is bounded (256 KiB kept), and the status result to the 512 KiB
 * json block cap.
 *
 * @module
 */

import { protectedHead } from "../redact/head.ts";
import { redactDiff } from "../redact/diff_lines.ts";
import type { Protector } from "../redact/types.ts";
import { CancelledError } from "../paths/walk.ts";
import path from "node:path";
import { ToolhostError } from "../errors/errors.ts";
import { createCallDirs } from "../process/call_dirs.ts";
import type { Block, ToolResult } from "../results/types.ts";
import { validateLogicalPath } from "../paths/logical.ts";
import { resolveProgram } from "../workspace/program_path.ts";
import { runCaptured } from "./capture.ts";
import type { NativeEnv } from "./context.ts";
import { NATIVE_LIMITS } from "./limits.ts";
import { textBlocks } from "./text.ts";
import { checkConfigListing, GIT_SAFE_CONFIG, gitSafeEnv } from "./git_safety.ts";
import { fitPrefix } from "./json_budget.ts";
import { LIMITS } from "../results/types.ts";

interface GitRun {
  stdout: string;
  truncated: boolean;
}

/**
 * Run git; `protect` (for output handed out, never for output toolhost checks) redacts the
 * retained stdout before anything cuts it.
 */
async function git(
  env: NativeEnv,
  args: string[],
  protect?: Protector,
  diff = false,
): Promise<GitRun> {
  const exe = resolveProgram("git", "/", "/", { PATH: env.baseEnv.PATH });
  if (!exe.ok) throw new ToolhostError("TOOL_ERROR", "git was not found on PATH.");
  const dirs = await createCallDirs(env.stateDir);
  try {
    const run = await runCaptured({
      command: exe.path,
      args: ["--no-pager", ...GIT_SAFE_CONFIG, ...args],
      cwd: env.declaring.cwd,
      env: gitSafeEnv(env.baseEnv, dirs.tmpDir),
      timeoutMs: NATIVE_LIMITS.gitTimeoutMs,
      retainBytes: NATIVE_LIMITS.gitMaxOutputBytes,
      signal: env.signal,
      callDirs: dirs,
      confine: env.confine,
      sandboxWritable: [dirs.outputDir, dirs.tmpDir],
    });
    if (run.spawnFailure) throw new ToolhostError("TOOL_ERROR", "git could not be started.");
    if (run.cancelled) throw new CancelledError();
    if (run.timedOut) {
      throw new ToolhostError(
        "TOOL_ERROR",
        `git timed out after ${NATIVE_LIMITS.gitTimeoutMs} ms.`,
      );
    }
    if (run.exitCode === 128) {
      throw new ToolhostError(
        "TOOL_ERROR",
        `\`${env.declaring.id}\` is not inside a git repository (or git refused it).`,
      );
    }
    if (run.exitCode !== 0 && !run.overflow) {
      throw new ToolhostError("TOOL_ERROR", `git exited with status ${run.exitCode}.`);
    }
    const truncated = run.stdoutBytes > run.stdout.length;
    // Before any cut. A diff prefixes each line of a multi-line value: its form there is
    // longer by one character per line break, which the hold-back of a cut covers too.
    const extra = diff && protect?.active ? protect.maxBreaks : 0;
    const kept = protectedHead(protect, run.stdout, truncated, extra);
    const text = new TextDecoder("utf-8", { fatal: false }).decode(kept);
    return { stdout: diff ? redactDiff(protect, text) : text, truncated };
  } finally {
    await dirs.remove().catch(() => {});
  }
}

/**
 * Check that the Artifact is inside a repository git will use safely; returns the
 * Artifact folder's prefix within the work tree (`rev-parse --show-prefix`).
 *
 * @throws {ToolhostError} outside a repository; {@link checkConfigListing}'s refusal.
 */
async function prepare(env: NativeEnv): Promise<string> {
  const prefix = (await git(env, ["rev-parse", "--show-prefix"])).stdout.replace(/\n$/, "");
  const listing = await git(env, ["config", "--list", "-z", "--no-includes"]);
  checkConfigListing(listing.stdout, listing.truncated, env.declaring.id);
  return prefix;
}

/** Pathspecs confining git to the Artifact: its files, minus non-admitted descendants. */
function scopeSpecs(env: NativeEnv, paths?: string[]): string[] {
  const own = env.declaring.kind === "file"
    ? [path.basename(env.declaring.physicalPath)]
    : undefined;
  const include = (paths && paths.length > 0 ? paths : own ?? ["."]).map((p) => `:(literal)${p}`);
  const exclude: string[] = [];
  for (const [logical, d] of env.descendants) {
    if (!d.admitted) exclude.push(`:(exclude,literal)${logical}`);
  }
  return ["--", ...include, ...exclude];
}

function checkPaths(env: NativeEnv, paths: string[] | undefined): void {
  for (const p of paths ?? []) validateLogicalPath(p, { label: "paths entry" });
  if (env.declaring.kind === "file" && paths && paths.length > 0) {
    const name = path.basename(env.declaring.physicalPath);
    if (paths.some((p) => p !== name)) {
      throw new ToolhostError("PATH_ERROR", "A file Artifact exposes only its own file.");
    }
  }
}

/** One status entry. */
export interface StatusEntry {
  /** Path relative to the Artifact. */
  path: string;
  /** Index status letter (porcelain v1 X). */
  index: string;
  /** Work-tree status letter (porcelain v1 Y). */
  worktree: string;
  /** Original path of a rename or copy. */
  from?: string;
}

/**
 * Parse `git status --porcelain=v1 -z --branch` output; paths have `prefix` stripped.
 *
 * @example
 * ```ts
 * import { parsePorcelain } from "./git.ts";
 * parsePorcelain("## main\0 M app/a.ts\0", "app/").entries; // [{ path: "a.ts", index: " ", worktree: "M" }]
 * ```
 */
export function parsePorcelain(
  out: string,
  prefix: string,
): { branch: string | null; entries: StatusEntry[] } {
  const parts = out.split("\0");
  let branch: string | null = null;
  const entries: StatusEntry[] = [];
  const rel = (p: string) => (p.startsWith(prefix) ? p.slice(prefix.length) : p);
  for (let i = 0; i < parts.length; i++) {
    const p = parts[i];
    if (p === "") continue;
    if (p.startsWith("## ")) {
      branch = p.slice(3);
      continue;
    }
    const e: StatusEntry = { path: rel(p.slice(3)), index: p[0], worktree: p[1] };
    if (p[0] === "R" || p[0] === "C") e.from = rel(parts[++i] ?? "");
    entries.push(e);
  }
  return { branch, entries };
}

/**
 * Run `git_status`: `{artifactId, branch, entries, truncated}`. Entries stop early
 * (`truncated`) where git's output was cut or the json block would pass
 * `maxResultBytes` (default 512 KiB).
 *
 * @example
 * ```ts
 * import { runGitStatus } from "./git.ts";
 * // await runGitStatus({}, env);
 * ```
 */
export async function runGitStatus(
  a: { untracked?: boolean },
  env: NativeEnv,
  maxResultBytes: number = LIMITS.maxJsonBytes,
): Promise<ToolResult> {
  const prefix = await prepare(env);
  const untracked = a.untracked === false ? "no" : "all";
  const run = await git(env, [
    "status",
    "--porcelain=v1",
    "-z",
    "--branch",
    "--ignore-submodules=all",
    `--untracked-files=${untracked}`,
    ...scopeSpecs(env),
  ]);
  const parsed = parsePorcelain(run.stdout, prefix);
  if (run.truncated && parsed.entries.length > 0) parsed.entries.pop(); // possibly cut
  // Entries in the order they are shown: git's order of a path holding a protected value
  // among the others would tell the value's next character.
  const p = env.protect;
  if (p?.active) {
    const key = (e: StatusEntry) => p.text(e.path);
    parsed.entries.sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
  }
  const shape = (entries: StatusEntry[], cut: boolean) => ({
    artifactId: env.declaring.id,
    branch: parsed.branch,
    entries,
    truncated: cut || run.truncated,
  });
  const fit = fitPrefix(parsed.entries, shape, maxResultBytes);
  return { content: [{ type: "json", data: shape(fit.items, fit.cut) }], isError: false };
}

/**
 * Run `git_diff`: a json block `{artifactId, staged, bytes, truncated, empty}` then the
 * diff text (paths relative to the Artifact) in text blocks.
 *
 * @example
 * ```ts
 * import { runGitDiff } from "./git.ts";
 * // await runGitDiff({ staged: true, paths: ["src"] }, env);
 * ```
 */
export async function runGitDiff(
  a: { staged?: boolean; paths?: string[]; contextLines?: number },
  env: NativeEnv,
): Promise<ToolResult> {
  checkPaths(env, a.paths);
  await prepare(env); // also: outside a repository git diff would run --no-index
  const args = [
    "diff",
    "--no-color",
    "--no-ext-diff",
    "--no-textconv",
    "--ignore-submodules=all",
    "--relative",
    `-U${a.contextLines ?? 3}`,
  ];
  if (a.staged) args.push("--cached");
  const run = await git(env, [...args, ...scopeSpecs(env, a.paths)], env.protect, true);
  const meta = {
    artifactId: env.declaring.id,
    staged: a.staged === true,
    bytes: new TextEncoder().encode(run.stdout).length,
    truncated: run.truncated,
    empty: run.stdout === "",
  };
  const content: Block[] = [{ type: "json", data: meta }, ...textBlocks(run.stdout)];
  return { content, isError: false };
}
