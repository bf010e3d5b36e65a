/**
 * The `read` built-in: one page of lines of a file in the declaring Artifact's scope.
 *
 * @module
 */

import { redactPieces } from "../redact/pieces.ts";
import type { Protector } from "../redact/types.ts";
import fs from "node:fs";
import { errorResult, jsonResult, type ToolResult } from "../results/types.ts";
import { resolveLogicalPath } from "../paths/resolve.ts";
import type { BuiltinEnv } from "./context.ts";
import { ownership, withSandbox } from "./common.ts";
import { type PageLine, readLinePage } from "./line_page.ts";
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
/**
 * Most bytes of the lines read around a page to find a value the page's edge cuts (the
 * page's own lines included). Past it the page is refused: without its neighbours an
 * occurrence cut by its edge would be handed out in part, and reading them whole would
 * make one call's memory grow with the file's line lengths.
 *
 * @example
 * ```ts
 * import { MAX_CONTEXT_BYTES } from "./read.ts";
 * console.log(MAX_CONTEXT_BYTES / 1024 / 1024); // 4
 * ```
 */
export const MAX_CONTEXT_BYTES = 4 * 1024 * 1024;

/**
 * A page's lines with protected values redacted, or null when the lines around it could
 * not be read within {@link MAX_CONTEXT_BYTES}. A value that spans lines can be cut by
 * the page's first or last line: the lines around the page (as many as a value has line
 * breaks) are read too, and an occurrence the page cuts is replaced whole.
 */
async function protectLines(
  protect: Protector | undefined,
  fd: number,
  lines: PageLine[],
  size: number,
): Promise<PageLine[] | null> {
  if (!protect?.active || lines.length === 0) return lines;
  const texts = lines.map((l) => l.text);
  let before: PageLine[] = [];
  let after: PageLine[] = [];
  const k = protect.maxBreaks;
  if (k > 0) {
    const first = Math.max(1, lines[0].line - k);
    const last = lines[lines.length - 1].line;
    const around = await readLinePage(fd, {
      line: first,
      limit: last + k - first + 1,
      maxBytes: MAX_CONTEXT_BYTES,
      maxJsonBytes: Number.MAX_SAFE_INTEGER,
      sizeHint: size,
    });
    // Every neighbour must be there (up to the file's end): fail closed, never in part.
    if (!around.ok) return null;
    const got = around.lines.at(-1)?.line ?? 0;
    if (got < Math.min(last + k, around.totalLines)) return null;
    before = around.lines.filter((l) => l.line < lines[0].line);
    after = around.lines.filter((l) => l.line > last);
  }
  const join = (ls: PageLine[]) => ls.map((l) => l.text).join("");
  const out = redactPieces(protect, texts, join(before), join(after));
  return out === texts ? lines : lines.map((l, i) => ({ line: l.line, text: out[i] }));
}

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
      const lines = await protectLines(env.protect, file.fd, page.lines, file.size);
      if (lines === null) {
        return errorResult(
          `${showPath(r.path)}: the lines around this page are longer than ` +
            `${MAX_CONTEXT_BYTES / 1024 / 1024} MiB together, too long to check for protected ` +
            "values that cross the page's edge; read from another line, or use grep.",
        );
      }
      rest.lines = lines;
      return jsonResult({ ...ownership(r), ...rest });
    } finally {
      fs.closeSync(file.fd);
    }
  });
}
