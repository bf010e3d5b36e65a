/**
 * The lock as the extension host enforces it: an extension whose declaration (every key:
 * command, args, env, limits, a URL, tool filters, …), program or execution paths (the
 * files and folders it declares it runs) are not the locked ones is not even started —
 * its locked tools are listed neutrally and refused; tools it lists that are new or
 * re-described are blocked. Checked at every listing, so a server that changes its tool
 * list after the first `tools/list` (announced with `notifications/tools/list_changed`,
 * or by restarting) is caught too.
 *
 * @module
 */

import type { ExtensionDecl } from "../workspace/parse_extensions.ts";
import { pinProgram } from "../pins/program_pin.ts";
import { extensionPathPins, type ExtensionPinOptions, type PinCache } from "./extension_pins.ts";
import { toolEnvironment } from "../process/env.ts";
import { toolHashes } from "./canonical.ts";
import {
  compareExtensionDecl,
  compareExtensionTools,
  type Drift,
  type ExtensionDeclPart,
} from "./compare.ts";
import { extensionDeclaration } from "./declaration.ts";
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

/**
 * What an extension is before it starts: its canonical declaration, the program its
 * command resolves to (with the PATH it will be started with) and the pins of its
 * declared execution paths. An extension without a command (a remote one) pins neither.
 * `pins`: a snapshot cache, and whether a path that cannot be pinned throws (the default)
 * or is recorded as changed.
 *
 * @example
 * ```ts
 * import { extensionDeclPart } from "./extension_lock.ts";
 * const part = await extensionDeclPart("/", { name: "fx", command: "sh", args: [] }, {});
 * console.log(Object.keys(part.programs));
 * ```
 */
export async function extensionDeclPart(
  root: string,
  decl: Partial<ExtensionDecl> & Pick<ExtensionDecl, "name">,
  env: Record<string, string>,
  pins: ExtensionPinOptions = {},
): Promise<ExtensionDeclPart> {
  const declaration = extensionDeclaration(decl);
  // A remote extension (`url`, command "") runs no local program.
  if (typeof decl.command !== "string" || decl.command === "") return { declaration, programs: {} };
  const programEnv = toolEnvironment(env, decl.env ?? {});
  const ctx = { root, cwd: root, env: programEnv, operands: decl.args ?? [] };
  const programs = await pinProgram(decl.command, ctx);
  const executionPaths = await extensionPathPins(root, decl, pins);
  return { declaration, programs, ...(executionPaths ? { executionPaths } : {}) };
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
 * const check = new ExtensionLockCheck("app/review", undefined, "/", {});
 * (await check.serverDrift({ name: "fx", command: "x", args: [] })).length; // 1: the eval is not locked
 * ```
 */
export class ExtensionLockCheck {
  /** The eval. */
  readonly evalId: string;
  /** Its lock entry (undefined: the lock has none, so every extension is blocked). */
  readonly locked: EvalLock | undefined;
  readonly #root: string;
  readonly #env: Record<string, string>;
  readonly #evalDrift: readonly Drift[];
  /** Execution-path snapshots by extension, so a check re-hashes only what moved. */
  readonly #pinCaches = new Map<string, PinCache>();

  /**
   * Create from an eval's lock entry, the workspace root and the author's environment
   * (programs are looked up with its PATH). `evalDrift`: differences of the eval's own
   * declaration (hooks, plugins, …), which hold every extension back too.
   */
  constructor(
    evalId: string,
    locked: EvalLock | undefined,
    root: string,
    env: Record<string, string>,
    evalDrift: readonly Drift[] = [],
  ) {
    this.evalId = evalId;
    this.locked = locked;
    this.#root = root;
    this.#env = env;
    this.#evalDrift = evalDrift;
  }

  /**
   * Differences that forbid starting the extension at all (empty: it may start): its
   * declaration, its program and its execution paths, hashed now (a path that can no
   * longer be pinned shows as changed).
   */
  async serverDrift(
    decl: Partial<ExtensionDecl> & Pick<ExtensionDecl, "name">,
  ): Promise<Drift[]> {
    if (this.locked === undefined) {
      return [{ kind: "eval", name: this.evalId, field: "entry", change: "added" }];
    }
    const entry = own(this.locked.extensions, decl.name);
    let cache = this.#pinCaches.get(decl.name);
    if (cache === undefined) this.#pinCaches.set(decl.name, cache = new Map());
    const now = entry === undefined
      ? { declaration: {}, programs: {} }
      : await extensionDeclPart(this.#root, decl, this.#env, { cache, onFailure: "record" });
    return [...this.#evalDrift, ...compareExtensionDecl(decl.name, entry, now)];
  }

  /**
   * Differences of the declaration alone, and of the eval's own declaration — no program
   * or execution path is looked up or hashed. Enough to list an extension from the lock
   * (what is shown is what was reviewed); starting it still checks its program and
   * execution paths ({@link serverDrift}).
   */
  declarationDrift(decl: Partial<ExtensionDecl> & Pick<ExtensionDecl, "name">): Drift[] {
    if (this.locked === undefined) {
      return [{ kind: "eval", name: this.evalId, field: "entry", change: "added" }];
    }
    const entry = own(this.locked.extensions, decl.name);
    const now = {
      declaration: extensionDeclaration(decl),
      programs: entry?.programs ?? {},
      executionPaths: entry?.executionPaths,
    };
    return [...this.#evalDrift, ...compareExtensionDecl(decl.name, entry, now)];
  }

  /** The tools the lock records for an extension (its own names), for a neutral listing. */
  lockedTools(ext: string): string[] {
    return Object.keys(own(this.locked?.extensions, ext)?.tools ?? {});
  }

  /**
   * The tools the lock records for an extension with their listings, or undefined when
   * the lock has no entry or an entry without listings (written before they were kept).
   */
  lockedListing(ext: string): ListedTool[] | undefined {
    const entry = own(this.locked?.extensions, ext);
    if (entry === undefined) return undefined;
    const out: ListedTool[] = [];
    for (const [name, t] of Object.entries(entry.tools)) {
      if (t.listing === undefined) return undefined;
      out.push({ name, description: t.listing.description, inputSchema: t.listing.inputSchema });
    }
    return out;
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
 * // const check = await extensionLockFor(ws, "app/review", env);
 * ```
 */
export async function extensionLockFor(
  ws: Pick<Workspace, "root">,
  evalId: string,
  env: Record<string, string>,
): Promise<ExtensionLockCheck | undefined> {
  const file = await readLockFile(ws);
  if (file === undefined) return undefined;
  return new ExtensionLockCheck(evalId, own(file.evals, evalId), ws.root, env);
}
