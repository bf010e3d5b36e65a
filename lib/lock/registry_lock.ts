/**
 * The lock as one open registry enforces it: its eval's actual tools and pins compared
 * with `toolhost.lock`, the affected tools blocked (calls answer with a `LOCK_MISMATCH`
 * error result, listings show a neutral description instead of the changed one), and
 * the eval's extension entries handed on to the extension host.
 *
 * @module
 */

import type { ToolListing } from "../registry/registry.ts";
import type { Selection } from "../registry/selection.ts";
import { errorResult, type ToolResult } from "../results/types.ts";
import { sessionPinKey } from "../workspace/names.ts";
import { toolHashes } from "./canonical.ts";
import { compareRegistryPart, describeDrift, type Drift, type RegistryPart } from "./compare.ts";
import type { EvalLock, LockFile, PathPins } from "./lock_file.ts";
import { emptyRecord, own } from "./own.ts";

/** What the registry knows at open time. */
export interface LockInputs {
  /** The selection (eval id, tools and their declarations). */
  selection: Selection;
  /** The raw listing (declared, artifact and plugin tools). */
  listing: readonly ToolListing[];
  /** Execution-path pins by tool or session key. */
  pins: Record<string, Record<string, string>>;
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
 * The registry's part of an eval lock from what it lists and pins.
 *
 * @example
 * ```ts
 * import { registryPart } from "./registry_lock.ts";
 * // registryPart({ selection: reg.selection, listing: reg.list(), pins: reg.pins })
 * ```
 */
export function registryPart(inputs: LockInputs): RegistryPart {
  const sessionKeys = new Set(Object.keys(inputs.pins).filter((k) => /\.(start|stop)$/.test(k)));
  const tools: RegistryPart["tools"] = emptyRecord();
  for (const t of inputs.listing) {
    tools[t.name] = {
      ...toolHashes(t.description, t.inputSchema),
      executionPaths: copyPins(own(inputs.pins, t.name)),
    };
  }
  const sessions: RegistryPart["sessions"] = emptyRecord();
  for (const k of sessionKeys) sessions[k] = copyPins(own(inputs.pins, k));
  return { tools, sessions };
}

/** Tools bound to each session pin key. */
function copyPins(pins: PathPins | undefined): PathPins {
  return Object.assign(emptyRecord<string>(), pins);
}

function sessionTools(sel: Selection): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const t of sel.tools) {
    if (t.decl.type !== "command" || t.decl.session === undefined) continue;
    for (const which of ["start", "stop"] as const) {
      const key = sessionPinKey(t.decl.session, t.artifactId, which);
      out.set(key, [...(out.get(key) ?? []), t.name]);
    }
  }
  return out;
}

/**
 * The lock of one open registry.
 *
 * @example
 * ```ts
 * import { RegistryLock } from "./registry_lock.ts";
 * // const lock = RegistryLock.verify(lockFile, { selection, listing, pins });
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
    const evalId = inputs.selection.evalId;
    if (file === undefined || evalId === undefined) return undefined;
    const locked = own(file.evals, evalId);
    if (locked === undefined) {
      const d: Drift = { kind: "eval", name: evalId, field: "entry", change: "added" };
      const lock = new RegistryLock(undefined, [d]);
      for (const t of inputs.listing) lock.#blocked.set(t.name, [d]);
      return lock;
    }
    const drift = compareRegistryPart(locked, registryPart(inputs));
    const lock = new RegistryLock(locked, drift);
    const bySession = sessionTools(inputs.selection);
    for (const d of drift) {
      const names = d.kind === "tool" ? [d.name] : bySession.get(d.name) ?? [];
      if (d.change === "removed" && d.field === "entry") continue;
      for (const n of names) lock.#blocked.set(n, [...(lock.#blocked.get(n) ?? []), d]);
    }
    return lock;
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
