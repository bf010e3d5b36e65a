/**
 * The `view_image` built-in: embed a PNG, JPEG or WebP file from the declaring
 * Artifact's scope as an image block, with the same checks as image results.
 *
 * @module
 */

import fs from "node:fs";
import { errorResult, LIMITS, type ToolResult } from "../results/types.ts";
import { resolveLogicalPath } from "../paths/resolve.ts";
import { checkImage } from "../images/detect.ts";
import type { BuiltinEnv } from "./context.ts";
import { readBounded, withSandbox } from "./common.ts";
import { showPath } from "../paths/show_path.ts";

/** Arguments of `view_image`. */
export interface ViewImageArgs {
  /** Logical path of the image file. */
  path: string;
}

/**
 * Run `view_image`: one image block `{type:"image", mimeType, data}`.
 *
 * @example
 * ```ts
 * import { runViewImage } from "./view_image.ts";
 * // const result = await runViewImage({ path: "screens/home.png" }, env);
 * ```
 */
export async function runViewImage(args: ViewImageArgs, env: BuiltinEnv): Promise<ToolResult> {
  const r = resolveLogicalPath(env, args.path);
  return await withSandbox(r, env, (box) => {
    const file = box.openFile(r.components, r.path);
    try {
      if (file.size > LIMITS.maxImageBytes) {
        return errorResult(`${showPath(r.path)} is larger than 4 MiB; use a smaller image.`);
      }
      const bytes = readBounded(file.fd, LIMITS.maxImageBytes);
      const check = checkImage(bytes);
      if (!check.ok) return errorResult(`${showPath(r.path)}: ${check.reason}`);
      return {
        content: [{ type: "image", mimeType: check.mimeType, data: bytes.toString("base64") }],
        isError: false,
      };
    } finally {
      fs.closeSync(file.fd);
    }
  });
}
