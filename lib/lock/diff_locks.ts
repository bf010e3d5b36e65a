/**
 * Differences between two whole lock files (`toolhost lock --check`): evals added or
 * removed, and per eval the registry part and each extension.
 *
 * @module
 */

import {
  compareExtensionDecl,
  compareExtensionTools,
  compareRegistryPart,
  type Drift,
} from "./compare.ts";
import type { EvalLock, LockFile } from "./lock_file.ts";
import { own } from "./own.ts";

function evalDiff(id: string, locked: EvalLock, now: EvalLock): Drift[] {
  const out = compareRegistryPart(locked, now);
  for (const name of new Set([...Object.keys(locked.extensions), ...Object.keys(now.extensions)])) {
    const l = own(locked.extensions, name);
    const n = own(now.extensions, name);
    if (n === undefined) {
      out.push({ kind: "extension", name, field: "entry", change: "removed" });
      continue;
    }
    const decl = compareExtensionDecl(name, l, n);
    out.push(...decl);
    if (l !== undefined) out.push(...compareExtensionTools(name, l.tools, n.tools));
  }
  return out.map((d) => ({ ...d, evalId: id }));
}

/**
 * Every difference between the `locked` file and a freshly `built` one (restricted to
 * `evals` when given). A missing lock file makes every eval `added`.
 *
 * @example
 * ```ts
 * import { diffLocks } from "./diff_locks.ts";
 * const e = { declaration: {}, programs: {}, tools: {}, sessions: {}, extensions: {} };
 * diffLocks(undefined, { lockfileVersion: 2, evals: { "app/r": e } });
 * // [{ kind: "eval", name: "app/r", field: "entry", change: "added" }]
 * ```
 */
export function diffLocks(
  locked: LockFile | undefined,
  built: LockFile,
  evals?: readonly string[],
): Drift[] {
  const ids = evals ?? [
    ...new Set([...Object.keys(locked?.evals ?? {}), ...Object.keys(built.evals)]),
  ].sort();
  const out: Drift[] = [];
  for (const id of ids) {
    const l = own(locked?.evals, id);
    const n = own(built.evals, id);
    if (n === undefined) out.push({ kind: "eval", name: id, field: "entry", change: "removed" });
    else if (l === undefined) out.push({ kind: "eval", name: id, field: "entry", change: "added" });
    else out.push(...evalDiff(id, l, n));
  }
  return out;
}
