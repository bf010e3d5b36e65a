/**
 * Execution-path pinning: files and directories to SHA-256, with budgets.
 *
 * @example
 * ```ts
 * import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
 * import { tmpdir } from "node:os";
 * import { join } from "node:path";
 * import { pinExecutionPaths, pinPath } from "./mod.ts";
 * const repo = mkdtempSync(join(tmpdir(), "repo-"));
 * mkdirSync(join(repo, "tools"));
 * writeFileSync(join(repo, "tools/run"), "#!/bin/sh\necho ok\n");
 * const one = await pinPath(repo, "tools/run");
 * const all = await pinExecutionPaths(repo, [{ key: "run_app", paths: ["tools/run"] }]);
 * ```
 *
 * @module
 */

export { pinPath } from "./pin_path.ts";
export { pinExecutionPaths } from "./pin_execution_paths.ts";
export type {
  ExecutionPathPins,
  PinExecutionPathsOptions,
  PinRequest,
} from "./pin_execution_paths.ts";
export { DEFAULT_PIN_MAX_BYTES, DEFAULT_PIN_MAX_ENTRIES } from "./options.ts";
export type { PinOptions } from "./options.ts";
export { directoryDigest } from "./dir_digest.ts";
export type { DigestLine } from "./dir_digest.ts";
