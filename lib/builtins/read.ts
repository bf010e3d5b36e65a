/**
 * The `read` built-in: one page of lines of a file in the declaring Artifact's scope.
 *
 * @module
 */

import fs from "node:fs";
import { errorResult, jsonResult, type ToolResult } from "../results/types.ts";
import { resolveLogicalPath } from "../paths/resolve.ts";
import type { BuiltinEnv } from "./context.ts";
import { ownership, withSandbox } from "./common.ts";
import { readLinePage } from "./line_page.ts";
import { showPath } from "../paths/show_path.ts";

/** Default number of lines per page. */
export const DEFAULT_READ_LIMIT = 2000;

/** Arguments of `read` (already schema-validated). */
export interface ReadArgs {
  /** Logical file path. */
  path: string;
  /** 1-based first line. Default 1. */
  line?: number;
  /** Maximum lines. Default 2000. */
  limit?: number;
}

/**
 * Run `read`: `{artifactId, resolvedArtifactId, path, startLine, totalLines, lines,
 * truncated, nextLine?}` as one json block.
 *
 * @example
 * ```ts
 * import { runRead } from "./read.ts";
 * // const result = await runRead({ path: "README.md" }, env);
 * ```
 */
export async function runRead(args: ReadArgs, env: BuiltinEnv): Promise<ToolResult> {
  const r = resolveLogicalPath(env, args.path);
  return await withSandbox(r, env, async (box) => {
    const file = box.openFile(r.components, r.path);
    try {
      const page = await readLinePage(file.fd, {
        line: args.line ?? 1,
        limit: args.limit ?? DEFAULT_READ_LIMIT,
        sizeHint: file.size,
        signal: env.signal,
      });
      if (!page.ok) return errorResult(`${showPath(r.path)}: ${page.reason}`);
      const { ok: _ok, ...rest } = page;
      return jsonResult({ ...ownership(r), ...rest });
    } finally {
      fs.closeSync(file.fd);
    }
  });
}
