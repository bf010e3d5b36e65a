/**
 * The `glob` built-in: files beneath a folder whose relative paths match a pattern.
 * Names only; contents are never read. A file Artifact's virtual root holds just its file.
 *
 * @module
 */

import { protectGlob } from "../redact/glob.ts";
import { PathError } from "../errors/errors.ts";
import { jsonResult, type ToolResult } from "../results/types.ts";
import { resolveLogicalPath } from "../paths/resolve.ts";
import { compileGlob } from "../glob/pattern.ts";
import { globFiles, type GlobLimits } from "../glob/engine.ts";
import type { BuiltinEnv } from "./context.ts";
import { admitter, jsonBytes, ownership, withSandbox } from "./common.ts";
import { showPath } from "../paths/show_path.ts";

/** Arguments of `glob`. */
export interface GlobArgs {
  /** The glob pattern, relative to `path`. */
  pattern: string;
  /** Folder to search; omitted or `.` = the root. */
  path?: string;
}

/**
 * Run `glob`: `{artifactId, resolvedArtifactId, path, files, truncated}`.
 *
 * @example
 * ```ts
 * import { runGlob } from "./glob.ts";
 * // const result = await runGlob({ pattern: "**\/*.md" }, env);
 * ```
 */
export async function runGlob(
  args: GlobArgs,
  env: BuiltinEnv,
  limits: Partial<GlobLimits> = {},
): Promise<ToolResult> {
  const glob = protectGlob(compileGlob(args.pattern), env.protect);
  const r = resolveLogicalPath(env, args.path, { allowDotRoot: true });
  const base = ownership(r);
  const envelopeBytes = jsonBytes({ ...base, files: [], truncated: false });
  const out = await withSandbox(r, env, async (box) => {
    if (r.fileOnly !== undefined) {
      if (r.components.length > 0) {
        throw new PathError(`${showPath(r.path)} is a file; glob takes a folder.`);
      }
      return { files: glob.matchesPath(r.fileOnly) ? [r.fileOnly] : [], truncated: false };
    }
    const dir = box.openDir(r.components, r.path);
    try {
      return await globFiles(box, dir, r.path, glob, {
        limits,
        admit: admitter(env),
        envelopeBytes,
        signal: env.signal,
      });
    } finally {
      box.closeDir(dir);
    }
  });
  return jsonResult({ ...base, files: out.files, truncated: out.truncated });
}
