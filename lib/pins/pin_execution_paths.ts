/**
 * Pin every declared execution path of an eval's tools and session commands.
 *
 * @module
 */

import { PreparationFailed } from "../errors/errors.ts";
import { mapLimit } from "./limit.ts";
import { pinPath } from "./pin_path.ts";
import type { PinOptions } from "./options.ts";

/** The execution paths declared under one provenance key. */
export interface PinRequest {
  /** Registered tool name (e.g. `coverage_spec`) or `<session>_<artifact>.start` / `.stop`. */
  key: string;
  /** Declared workspace-relative execution paths. */
  paths: readonly string[];
}

/** `{"TOOL": {"PATH": "sha256"}}`, the `executionPaths` provenance shape. */
export type ExecutionPathPins = Record<string, Record<string, string>>;

/** Options of {@linkcode pinExecutionPaths}. */
export interface PinExecutionPathsOptions extends PinOptions {
  /**
   * Most distinct paths pinned at once.
   *
   * @default {4}
   */
  concurrency?: number;
}

/**
 * Pin each distinct declared path once (paths shared by several keys are hashed once per
 * call), with bounded concurrency, and map the digests back to every key that declared them.
 * Keys with no paths map to `{}`. On the first failure no new pin starts and a
 * `PreparationFailed` naming the key and path is thrown once the pins in flight finish.
 *
 * @example
 * ```ts
 * import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
 * import { tmpdir } from "node:os";
 * import { join } from "node:path";
 * import { pinExecutionPaths } from "./pin_execution_paths.ts";
 * const repo = mkdtempSync(join(tmpdir(), "repo-"));
 * mkdirSync(join(repo, "tools/harness"), { recursive: true });
 * writeFileSync(join(repo, "tools/coverage"), "#!/bin/sh\n");
 * writeFileSync(join(repo, "tools/harness/main.js"), "");
 * const pins = await pinExecutionPaths(repo, [
 *   { key: "coverage_spec", paths: ["tools/coverage"] },
 *   { key: "harness_app.start", paths: ["tools/harness"] },
 * ]);
 * console.log(pins.coverage_spec["tools/coverage"]);
 * ```
 */
export async function pinExecutionPaths(
  workspaceRoot: string,
  pins: readonly PinRequest[],
  opts: PinExecutionPathsOptions = {},
): Promise<ExecutionPathPins> {
  const firstKey = new Map<string, string>();
  for (const { key, paths } of pins) {
    for (const path of paths) if (!firstKey.has(path)) firstKey.set(path, key);
  }
  const distinct = [...firstKey.keys()];
  const { concurrency = 4, ...budgets } = opts;
  const digests = await mapLimit(distinct, concurrency, async (path) => {
    try {
      return await pinPath(workspaceRoot, path, budgets);
    } catch (e) {
      if (e instanceof PreparationFailed) {
        throw new PreparationFailed(`${firstKey.get(path)}: ${e.message}`);
      }
      throw e;
    }
  });
  const byPath = new Map(distinct.map((path, i) => [path, digests[i]]));
  const byKey = new Map<string, [string, string][]>();
  for (const { key, paths } of pins) {
    const rows = byKey.get(key) ?? [];
    for (const path of paths) rows.push([path, byPath.get(path)!]);
    byKey.set(key, rows);
  }
  // fromEntries defines own properties, so no key can reach a prototype.
  return Object.fromEntries([...byKey].map(([key, rows]) => [key, Object.fromEntries(rows)]));
}
