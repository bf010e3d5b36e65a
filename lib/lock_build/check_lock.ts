/**
 * The `lock` section of `toolhost tools check` for one eval: open its registry (pins its
 * execution paths, runs nothing) and compare it with `toolhost.lock`.
 *
 * @module
 */

import { ToolhostError } from "../errors/errors.ts";
import type { Registry } from "../registry/registry.ts";
import { selectTools } from "../registry/selection.ts";
import type { Workspace } from "../workspace/types.ts";
import { type LockSection, lockSection } from "../lock/lock_section.ts";
import { lockPath } from "../lock/lock_file.ts";
import { lockEntryExists } from "../lock/read_lock_text.ts";
import { ExtensionLockCheck } from "../lock/extension_lock.ts";
import { evalExtensions } from "../workspace/parse_extensions.ts";
/**
 * Verify one eval against `toolhost.lock`: its registry part (pins execution paths and
 * hashes programs, runs nothing) and each extension's declaration and program (never
 * started). Undefined when the workspace has no lock file.
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
  if (!lockEntryExists(lockPath(ws))) return undefined;
  let reg: Registry;
  try {
    // Loaded only when there is a lock to verify: `tools check` without one stays light.
    const { Registry } = await import("../registry/registry.ts");
    const audience = selectTools(ws, { eval: evalId }).audience;
    reg = await Registry.open(ws, evalId, { stateDir, audience });
  } catch (e) {
    if (!(e instanceof ToolhostError)) throw e;
    return { status: "unverifiable", drift: [], blocked: [], reason: e.message };
  }
  try {
    const drift = [...(reg.lock?.drift ?? [])];
    const blocked = reg.lock?.blocked() ?? [];
    if (reg.lock) {
      // Extensions statically: their declarations and programs, never started.
      const check = new ExtensionLockCheck(
        evalId,
        reg.lock.locked,
        ws.root,
        reg.env,
      );
      for (const d of evalExtensions(ws, evalId)) {
        const held = await check.serverDrift(d);
        if (held.length === 0) continue;
        drift.push(...held.filter((x) => x.kind !== "eval")); // an unlocked eval is already listed
        blocked.push(...check.lockedTools(d.name).map((t) => `${t}_${d.name}`));
      }
    }
    // Names out of the lock may hold a protected value: shown as `[protected]`.
    return lockSection(drift, blocked, [reg.plugins.redactor]);
  } finally {
    await reg.close();
  }
}
