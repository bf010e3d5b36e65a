/**
 * The `grep` built-in: search a file or folder with a Rust-regex/RE2 pattern (linear
 * time). Binary (NUL) and invalid-UTF-8 files are skipped whole; hidden files are
 * included; nothing is filtered by gitignore. The optional `glob` filters file paths
 * relative to `path` (a slash-free filter matches basenames at any depth; for a single
 * file, its basename).
 *
 * @module
 */

import { protectGlob } from "../redact/glob.ts";
import fs from "node:fs";
import { PathError } from "../errors/errors.ts";
import { jsonResult, type ToolResult } from "../results/types.ts";
import { type ResolvedPath, resolveLogicalPath } from "../paths/resolve.ts";
import type { Sandbox } from "../paths/sandbox.ts";
import { compileGlob } from "../glob/pattern.ts";
import { compileGrepPattern } from "../grep/regex.ts";
import {
  type GrepLimits,
  type GrepOptions,
  type GrepOutcome,
  type GrepTarget,
  grepTarget,
} from "../grep/engine.ts";
import type { BuiltinEnv } from "./context.ts";
import { admitter, jsonBytes, ownership, withSandbox } from "./common.ts";
import { showPath } from "../paths/show_path.ts";

/** Arguments of `grep`. */
export interface GrepArgs {
  /** The regular expression. */
  pattern: string;
  /** File or folder; omitted or `.` = the root. */
  path?: string;
  /** Optional filename filter. */
  glob?: string;
}

type Run = (target: GrepTarget) => Promise<GrepOutcome>;

async function searchFile(
  box: Sandbox,
  comps: string[],
  logical: string,
  name: string,
  run: Run,
): Promise<GrepOutcome> {
  const file = box.openFile(comps, logical);
  try {
    return await run({ kind: "file", fd: file.fd, logical, name });
  } finally {
    fs.closeSync(file.fd);
  }
}

async function searchResolved(
  box: Sandbox,
  r: ResolvedPath,
  env: BuiltinEnv,
  run: Run,
): Promise<GrepOutcome> {
  if (r.fileOnly !== undefined) {
    const logical = r.components.length === 0 ? r.fileOnly : r.path;
    return await searchFile(box, [r.fileOnly], logical, r.fileOnly, run);
  }
  const kind = box.kindOf(r.components, r.path);
  if (kind === null) throw new PathError(`${showPath(r.path)} does not exist.`);
  if (kind === "file") {
    return await searchFile(box, r.components, r.path, r.components[r.components.length - 1], run);
  }
  if (kind !== "directory") {
    throw new PathError(
      `${showPath(r.path)} is a symlink or special file; grep does not follow it.`,
    );
  }
  const dir = box.openDir(r.components, r.path);
  try {
    return await run({ kind: "dir", box, dir, logical: r.path, admit: admitter(env) });
  } finally {
    box.closeDir(dir);
  }
}

/**
 * Run `grep`: `{artifactId, resolvedArtifactId, path, matches: [{path, line, text}],
 * truncated}`. `limits` exists for benchmarks; agents always get the defaults.
 *
 * @example
 * ```ts
 * import { runGrep } from "./grep.ts";
 * // const result = await runGrep({ pattern: "TODO", glob: "*.ts" }, env);
 * ```
 */
export async function runGrep(
  args: GrepArgs,
  env: BuiltinEnv,
  limits: Partial<GrepLimits> = {},
): Promise<ToolResult> {
  const pattern = compileGrepPattern(args.pattern);
  const glob = args.glob === undefined
    ? undefined
    : protectGlob(compileGlob(args.glob, "glob filter"), env.protect);
  const r = resolveLogicalPath(env, args.path, { allowDotRoot: true });
  const base = ownership(r);
  const options: GrepOptions = {
    glob,
    limits,
    envelopeBytes: jsonBytes({ ...base, matches: [], truncated: false }),
    signal: env.signal,
    protect: env.protect,
  };
  const out = await withSandbox(
    r,
    env,
    (box) => searchResolved(box, r, env, (t) => grepTarget(t, pattern, options)),
  );
  return jsonResult({ ...base, matches: out.matches, truncated: out.truncated });
}
