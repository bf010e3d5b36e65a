/**
 * The `lock` section of `toolhost tools check`: whether an eval matches `toolhost.lock`,
 * and if not, every difference (names and fields) and the tools that would be refused.
 *
 * @module
 */

import { ToolhostError } from "../errors/errors.ts";
import { Registry } from "../registry/registry.ts";
import { selectTools } from "../registry/selection.ts";
import type { Workspace } from "../workspace/types.ts";
import { describeDrift, type Drift } from "./compare.ts";
import { lockPath } from "./lock_file.ts";
import { existsSync } from "node:fs";

/** The lock section of one eval's report. */
export interface LockSection {
  /** `verified` (matches), `drift` (differences: tools blocked) or `unverifiable`. */
  status: "verified" | "drift" | "unverifiable";
  /** One line per difference. */
  drift: string[];
  /** Tools that calls would refuse with `LOCK_MISMATCH`. */
  blocked: string[];
  /** Why it could not be verified (value-free), for `unverifiable`. */
  reason?: string;
}

/**
 * A lock section from drift lines and blocked tools.
 *
 * @example
 * ```ts
 * import { lockSection } from "./check_lock.ts";
 * lockSection([], []).status; // "verified"
 * ```
 */
export function lockSection(drift: readonly Drift[], blocked: readonly string[]): LockSection {
  return {
    status: drift.length === 0 ? "verified" : "drift",
    drift: drift.map(describeDrift),
    blocked: [...blocked],
  };
}

/**
 * Verify one eval's registry part against `toolhost.lock` (pins its execution paths,
 * runs nothing). Undefined when the workspace has no lock file.
 *
 * @example
 * ```ts
 * import { lockSectionFor } from "./check_lock.ts";
 * // const section = await lockSectionFor(ws, "app/review", stateDir);
 * ```
 */
export async function lockSectionFor(
  ws: Workspace,
  evalId: string,
  stateDir: string,
): Promise<LockSection | undefined> {
  if (!existsSync(lockPath(ws))) return undefined;
  let reg: Registry;
  try {
    const audience = selectTools(ws, { eval: evalId }).audience;
    reg = await Registry.open(ws, evalId, { stateDir, audience });
  } catch (e) {
    if (!(e instanceof ToolhostError)) throw e;
    return { status: "unverifiable", drift: [], blocked: [], reason: e.message };
  }
  try {
    return lockSection(reg.lock?.drift ?? [], reg.lock?.blocked() ?? []);
  } finally {
    await reg.close();
  }
}
