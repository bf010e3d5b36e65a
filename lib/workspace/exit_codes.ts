/**
 * `success_exit_codes` of a plain command tool: the exit statuses that mean success
 * (`grep` exits 1 for "no match"). Default `[0]`.
 *
 * @module
 */

import type { Problems, Table } from "./problems.ts";

/**
 * Read `success_exit_codes`: a nonempty array of unique integers from 0 to 255, taken only
 * by plain tools. Returns undefined when absent or invalid (the problem is recorded).
 *
 * @example
 * ```ts
 * import { Problems } from "./problems.ts";
 * import { readSuccessExitCodes } from "./exit_codes.ts";
 * const p = new Problems("toolhost.toml", "");
 * readSuccessExitCodes(p, "tool", { success_exit_codes: [0, 1] }, "plain"); // [0, 1]
 * ```
 */
export function readSuccessExitCodes(
  p: Problems,
  at: string,
  t: Table,
  protocol: string | undefined,
): number[] | undefined {
  const v = t.success_exit_codes;
  if (v === undefined) return undefined;
  const key = `${at}.success_exit_codes`;
  if (protocol === "json") {
    p.add(key, "only plain tools take it; a json tool reports failure with `isError`");
    return undefined;
  }
  if (!Array.isArray(v) || v.length === 0) {
    p.add(key, "must be a nonempty array of exit statuses, e.g. [0, 1]");
    return undefined;
  }
  if (v.some((c) => typeof c !== "number" || !Number.isInteger(c) || c < 0 || c > 255)) {
    p.add(key, "must hold only integers from 0 to 255");
    return undefined;
  }
  if (new Set(v).size !== v.length) {
    p.add(key, "must not repeat a status");
    return undefined;
  }
  return v as number[];
}
