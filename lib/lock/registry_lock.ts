/**
 * The lock as one open registry enforces it: its eval's actual tools and pins compared
 * with `toolhost.lock`, the affected tools blocked (calls answer with a `LOCK_MISMATCH`
 * error result, listings show a neutral description instead of the changed one), and
 * the eval's extension entries handed on to the extension host. Pure: the registry
 * computes what it is now and hands it in.
 *
 * @module
 */

import { errorResult, type ToolResult } from "../results/types.ts";
import type { ToolListing } from "../results/tool_listing.ts";
import { compareRegistryPart, describeDrift, type Drift, type RegistryPart } from "./compare.ts";
import type { EvalLock, LockFile } from "./lock_file.ts";
import { own } from "./own.ts";

/** What the registry is now, computed at open time (see `lib/registry/lock_state.ts`). */
export interface LockInputs {
  /** The eval id (undefined for an `--artifact` selection, which has no lock entry). */
  evalId: string | undefined;
  /** The listing (declared, artifact and plugin tools), before any neutralizing. */
  listing: readonly ToolListing[];
  /** The eval's actual declarations, pins and programs, in lock form. */
  part: RegistryPart;
  /** Session key (`<session>_<artifact>`) → the tools bound to it. */
  bindings: ReadonlyMap<string, readonly string[]>;
}

/**
 * The description a blocked tool is listed with (never the changed one).
 *
 * @example
 * ```ts
 * import { BLOCKED_DESCRIPTION } from "./registry_lock.ts";
 * BLOCKED_DESCRIPTION.startsWith("Blocked (LOCK_MISMATCH)"); // true
 * ```
 */
export const BLOCKED_DESCRIPTION =
  "Blocked (LOCK_MISMATCH): this tool differs from toolhost.lock, so it cannot be called " +
  "until the change is reviewed and `toolhost lock` is run.";

/**
 * The lock of one open registry.
 *
 * @example
 * ```ts
 * import { RegistryLock } from "./registry_lock.ts";
 * // const lock = RegistryLock.verify(lockFile, { evalId, listing, part, bindings });
 * // lock?.refusal("stats_app") → a LOCK_MISMATCH error result, or undefined
 * ```
 */
export class RegistryLock {
  /** The eval's lock entry, or undefined when the lock has none. */
  readonly locked: EvalLock | undefined;
  /** Every difference found at open. */
  readonly drift: readonly Drift[];
  readonly #blocked = new Map<string, Drift[]>();

  private constructor(locked: EvalLock | undefined, drift: Drift[]) {
    this.locked = locked;
    this.drift = drift;
  }

  /**
   * Compare a registry with a lock file. Undefined when there is no lock file or the
   * selection has no eval id (an `--artifact` selection has no lock entry).
   */
  static verify(file: LockFile | undefined, inputs: LockInputs): RegistryLock | undefined {
    const evalId = inputs.evalId;
    if (file === undefined || evalId === undefined) return undefined;
    const locked = own(file.evals, evalId);
    if (locked === undefined) {
      const d: Drift = { kind: "eval", name: evalId, field: "entry", change: "added" };
      const lock = new RegistryLock(undefined, [d]);
      for (const t of inputs.listing) lock.#blocked.set(t.name, [d]);
      return lock;
    }
    const drift = compareRegistryPart(locked, inputs.part);
    const lock = new RegistryLock(locked, drift);
    const all = inputs.listing.map((t) => t.name);
    for (const d of drift) {
      if (d.change === "removed" && d.field === "entry") continue;
      // The eval's own declaration and hook programs concern every tool it lists.
      const names = d.kind === "tool"
        ? [d.name]
        : d.kind === "session"
        ? inputs.bindings.get(d.name) ?? []
        : all;
      for (const n of names) lock.#blocked.set(n, [...(lock.#blocked.get(n) ?? []), d]);
    }
    return lock;
  }

  /** Differences of the eval's own declaration and hook programs (they concern every tool). */
  evalDrift(): Drift[] {
    return this.drift.filter((d) => d.kind === "eval");
  }

  /** Names of blocked tools. */
  blocked(): string[] {
    return [...this.#blocked.keys()];
  }

  /** The `LOCK_MISMATCH` error result for a blocked tool, else undefined. */
  refusal(name: string): ToolResult | undefined {
    const why = this.#blocked.get(name);
    if (why === undefined) return undefined;
    return errorResult(lockRefusalText(name, why));
  }

  /** A listing with every blocked tool's description and schema replaced by neutral ones. */
  neutralize(listing: ToolListing[]): ToolListing[] {
    return listing.map((t) =>
      this.#blocked.has(t.name)
        ? { name: t.name, description: BLOCKED_DESCRIPTION, inputSchema: { type: "object" } }
        : t
    );
  }
}

/**
 * The text of a `LOCK_MISMATCH` refusal: the tool and what changed (names and fields).
 *
 * @example
 * ```ts
 * import { lockRefusalText } from "./registry_lock.ts";
 * lockRefusalText("x_app", [{ kind: "tool", name: "x_app", field: "description", change: "changed" }]);
 * ```
 */
export function lockRefusalText(name: string, why: readonly Drift[]): string {
  return `LOCK_MISMATCH: the tool \`${name}\` was refused because it differs from toolhost.lock (${
    why.map(describeDrift).join("; ")
  }). Review the change, then run \`toolhost lock\` to accept it.`;
}
