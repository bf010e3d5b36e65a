/**
 * toolhost's own harness-kit, shown read-only in every sandbox: a harness or json tool
 * written with harness-kit (`import ... from ".../harness-kit/mod.ts"`) must load it, and
 * it lives with toolhost, outside the workspace — where no declaration can portably name
 * it (`sandbox_read` takes workspace-relative paths without `..`, or absolute ones that
 * differ per checkout). Like a `#!` interpreter (interpreter_path.ts), it is bound by
 * construction, and only as much as that:
 *
 * - exactly the files harness-kit's `mod.ts` loads at run time (its value imports, the
 *   three `lib/` modules they reach included), each bound as a file — never a folder, so
 *   nothing else placed next to them becomes visible;
 * - toolhost's own source (from a checkout, or the npm package's `esm/` JavaScript):
 *   the same bytes for everyone, nothing of the user's; a symlink or non-regular file is
 *   skipped;
 * - never a file inside the state directory or an Artifact outside the eval's scope (a
 *   workspace holding toolhost's source keeps an out-of-scope Artifact hidden).
 *
 * A compiled or bundled toolhost (`deno compile`, the Node single executable) has no such
 * files on disk: nothing is bound.
 *
 * @module
 */

import { lstatSync } from "node:fs";
import { fileURLToPath } from "node:url";

/**
 * The run-time module graph of `harness-kit/mod.ts`, relative to toolhost's root, with
 * `.ts` names (the npm build's are `.js`). tests/sandbox/harness_kit_files_test.ts
 * fails when harness-kit's imports and this list drift apart.
 */
export const HARNESS_KIT_RUNTIME: readonly string[] = [
  "harness-kit/mod.ts",
  "harness-kit/blocks.ts",
  "harness-kit/console_guard.ts",
  "harness-kit/json_tool.ts",
  "harness-kit/lazy_fs.ts",
  "harness-kit/request.ts",
  "harness-kit/result.ts",
  "harness-kit/session_harness.ts",
  "harness-kit/socket_rpc.ts",
  "harness-kit/validate.ts",
  "lib/images/detect.ts",
  "lib/text/text_clean.ts",
  "lib/results/types.ts",
];

let cached: string[] | undefined;

/**
 * The absolute paths of toolhost's harness-kit run-time files that exist here as
 * regular files (empty for a compiled toolhost).
 *
 * @example
 * ```ts
 * import { harnessKitFiles } from "./harness_kit_files.ts";
 * console.log(harnessKitFiles().every((f) => f.startsWith("/")));
 * ```
 */
export function harnessKitFiles(): string[] {
  if (cached !== undefined) return cached;
  const out: string[] = [];
  let here: URL | undefined;
  try {
    here = new URL(import.meta.url);
  } catch { /* a bundled build (the Node single executable) has no module URL */ }
  if (here?.protocol === "file:") {
    const ext = here.pathname.endsWith(".js") ? ".js" : ".ts";
    for (const rel of HARNESS_KIT_RUNTIME) {
      const path = fileURLToPath(new URL(`../../${rel.replace(/\.ts$/, ext)}`, here));
      try {
        if (lstatSync(path).isFile()) out.push(path);
      } catch { /* not on disk (a compiled toolhost): nothing to show */ }
    }
  }
  cached = out;
  return out;
}
