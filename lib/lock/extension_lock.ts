/**
 * The lock as the extension host enforces it: an extension whose declaration (command,
 * args) is not the locked one is not even started; tools it lists that are new or
 * re-described are blocked. Checked at every listing, so a server that changes its tool
 * list after the first `tools/list` (announced with `notifications/tools/list_changed`,
 * or by restarting) is caught too.
 *
 * @module
 */

import type { ExtensionDecl } from "../workspace/parse_extensions.ts";
import { toolHashes } from "./canonical.ts";
import { compareExtensionDecl, compareExtensionTools, type Drift } from "./compare.ts";
import { type EvalLock, type ExtensionToolLock, readLockFile } from "./lock_file.ts";
import { emptyRecord, own } from "./own.ts";
import type { Workspace } from "../workspace/types.ts";

/** The tools one extension listed, as compared with the lock. */
export interface ListedTool {
  /** The server's own tool name. */
  name: string;
  /** Its description. */
  description?: string;
  /** Its input schema. */
  inputSchema: unknown;
}

/** Blocked tools (by the server's own name) and every difference found. */
export interface ToolCheck {
  /** All differences, removed tools included. */
  drift: Drift[];
  /** Tools that may not be called, with why. */
  blocked: Map<string, Drift[]>;
}

/**
 * An eval's extension lock entries.
 *
 * @example
 * ```ts
 * import { ExtensionLockCheck } from "./extension_lock.ts";
 * const check = new ExtensionLockCheck("app/review", undefined);
 * check.serverDrift({ name: "fx", command: "x", args: [] }).length; // 1: the eval is not locked
 * ```
 */
export class ExtensionLockCheck {
  /** The eval. */
  readonly evalId: string;
  /** Its lock entry (undefined: the lock has none, so every extension is blocked). */
  readonly locked: EvalLock | undefined;

  /** Create from an eval's lock entry. */
  constructor(evalId: string, locked: EvalLock | undefined) {
    this.evalId = evalId;
    this.locked = locked;
  }

  /** Differences that forbid starting the extension at all (empty: it may start). */
  serverDrift(
    decl: Pick<
      ExtensionDecl,
      "name" | "command" | "args" | "remote" | "enabledTools" | "disabledTools"
    >,
  ): Drift[] {
    if (this.locked === undefined) {
      return [{ kind: "eval", name: this.evalId, field: "entry", change: "added" }];
    }
    const entry = own(this.locked.extensions, decl.name);
    return compareExtensionDecl(decl.name, entry, decl);
  }

  /** Compare what an (allowed) extension listed with its lock entry. */
  toolCheck(ext: string, tools: readonly ListedTool[]): ToolCheck {
    const locked = own(this.locked?.extensions, ext)?.tools ?? emptyRecord<ExtensionToolLock>();
    const now = emptyRecord<ExtensionToolLock>();
    for (const t of tools) now[t.name] = toolHashes(t.description ?? "", t.inputSchema);
    const drift = compareExtensionTools(ext, locked, now);
    const blocked = new Map<string, Drift[]>();
    for (const d of drift) {
      if (d.field === "entry" && d.change === "removed") continue;
      const tool = d.name.slice(ext.length + 1);
      blocked.set(tool, [...(blocked.get(tool) ?? []), d]);
    }
    return { drift, blocked };
  }
}

/**
 * The extension lock check of an eval from the workspace's lock file, or undefined when
 * there is none. Throws `LockMismatch` for a lock file that cannot be used.
 *
 * @example
 * ```ts
 * import { extensionLockFor } from "./extension_lock.ts";
 * // const check = await extensionLockFor(ws, "app/review");
 * ```
 */
export async function extensionLockFor(
  ws: Pick<Workspace, "root">,
  evalId: string,
): Promise<ExtensionLockCheck | undefined> {
  const file = await readLockFile(ws);
  if (file === undefined) return undefined;
  return new ExtensionLockCheck(evalId, own(file.evals, evalId));
}
