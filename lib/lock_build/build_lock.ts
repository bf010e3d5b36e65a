/**
 * Building `toolhost.lock`: open each eval's registry (lock verification off), record what
 * it lists, declares, pins and runs, start each admitted extension once to record the
 * tools it lists, and stop everything again. For `toolhost lock --check`, an extension
 * whose declaration, program or execution paths differ from the existing lock is never
 * started: a check must not run an unreviewed command.
 *
 * @module
 */

import { processEnv } from "../process/env.ts";
import { showPath } from "../paths/show_path.ts";
import { type LeavingLink, leavingLink } from "../pins/link_scope.ts";
import { type PathSnapshot, snapshotPath } from "../pins/pin_snapshot.ts";
import type { PinCache } from "../lock/extension_pins.ts";
// @ts-types="@modelcontextprotocol/sdk/types"
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { PreparationFailed } from "../errors/errors.ts";
import { ExtensionServer } from "../extensions/extension_server.ts";
import type { Plugin } from "../plugins/api.ts";
import { Registry } from "../registry/registry.ts";
import { listingLeaks } from "../extensions/listing_guard.ts";
import type { Protector } from "../redact/types.ts";
import { lockInputs } from "../registry/lock_state.ts";
import { selectTools } from "../registry/selection.ts";
import { evalExtensions, type ExtensionDecl } from "../workspace/parse_extensions.ts";
import type { Workspace } from "../workspace/types.ts";
import { toolHashes } from "../lock/canonical.ts";
import { compareExtensionDecl, type ExtensionDeclPart } from "../lock/compare.ts";
import { extensionDeclPart } from "../lock/extension_lock.ts";
import type { EvalLock, ExtensionLock, LockFile } from "../lock/lock_file.ts";
import { LOCK_VERSION, readLockFile } from "../lock/lock_file.ts";
import { emptyRecord, own } from "../lock/own.ts";

/** Options of {@link buildLock}. */
export interface BuildLockOptions {
  /** Only these evals (the others keep their existing entries). Default: every eval. */
  evals?: readonly string[];
  /** State directory. Default `<workspace>/.toolhost/state`. */
  stateDir?: string;
  /** The author's environment. Default: this process's. */
  env?: Record<string, string>;
  /** Library plugins (as for `Registry.open`). */
  plugins?: readonly Plugin[];
  /**
   * Build to compare with this lock (`toolhost lock --check`): an extension whose
   * declaration, program or execution paths differ from its entry here (or has none) is
   * not started; its entry keeps the locked tools, so only what differs before the start
   * shows as a difference.
   * Default: none (every admitted extension is started once).
   */
  checkAgainst?: LockFile;
  /**
   * Receives each built eval's protected values (its registry's redactor), so what a
   * caller prints of the lock (`toolhost lock --check`'s differences) can be redacted.
   */
  protectors?: Protector[];
}

/**
 * The lock entry of an extension from its declaration part and the tools it listed.
 *
 * @example
 * ```ts
 * import { extensionLock } from "./build_lock.ts";
 * const part = { declaration: { command: "srv", args: [] }, programs: {} };
 * extensionLock(part, [{ name: "echo", inputSchema: { type: "object" } }]);
 * ```
 */
export function extensionLock(
  part: ExtensionDeclPart,
  tools: readonly Pick<Tool, "name" | "description" | "inputSchema">[],
): ExtensionLock {
  const out: ExtensionLock = { ...part, tools: emptyRecord() };
  for (const t of tools) {
    const description = t.description ?? "";
    out.tools[t.name] = {
      ...toolHashes(description, t.inputSchema),
      // The listing itself, so a current lock lists the tools without starting the server.
      listing: { description, inputSchema: t.inputSchema as Record<string, unknown> },
    };
  }
  return out;
}

/**
 * The lock entry of an extension as its server lists it now. A tool whose listing holds a
 * protected value is left out (the lock is a file people commit): it is never published
 * either, and a server listing it shows as a new tool.
 */
async function listExtension(
  ws: Workspace,
  evalId: string,
  decl: ExtensionDecl,
  opts: BuildLockOptions,
  protect: Protector,
): Promise<ExtensionLock> {
  const env = opts.env ?? processEnv();
  const cache: PinCache = new Map();
  const part = await extensionDeclPart(ws.root, decl, env, { cache });
  // Pinned above (a path that cannot be pinned has thrown): the links checked are the
  // ones those pins hashed, from their snapshots, not read again.
  const snaps = await Promise.all(
    (decl.executionPaths ?? []).map((p) => cache.get(p) ?? snapshotPath(ws.root, p)),
  );
  refuseLeavingLink(`extension ${showPath(decl.name)}`, leavingLink(ws.root, snaps));
  if (opts.checkAgainst !== undefined) {
    const locked = own(own(opts.checkAgainst.evals, evalId)?.extensions, decl.name);
    if (compareExtensionDecl(decl.name, locked, part).length > 0) {
      return { ...part, tools: { ...locked?.tools } };
    }
  }
  const server = new ExtensionServer(decl, { root: ws.root, env });
  try {
    const tools = await server.listTools();
    return extensionLock(part, tools.filter((t) => !listingLeaks(protect, t)));
  } catch (e) {
    throw new PreparationFailed(
      `extension \`${decl.name}\` could not be listed (${
        (e as Error).message
      }); toolhost.lock was not written`,
    );
  } finally {
    await server.close();
  }
}

/**
 * Refuse to lock a tool, session or extension (`subject`, as shown) whose pinned folder
 * holds a symlink leading outside its pinned paths (`leaving`, found in the snapshots its
 * pins were computed from): a folder pin covers a link by its target text only, so what
 * it leads to would run unpinned.
 */
function refuseLeavingLink(subject: string, leaving: LeavingLink | undefined): void {
  if (leaving !== undefined) {
    throw new PreparationFailed(
      `${subject}: execution path ${showPath(leaving.declared)} holds a symlink ` +
        `${showPath(leaving.link)} that leads outside its execution paths; a folder's pin ` +
        "covers a link by its target text only, so what it leads to would run unpinned. " +
        "Replace the link with what it leads to, or declare the folder it leads into in " +
        "execution_paths; toolhost.lock was not written",
    );
  }
}

/** The snapshots `reg` pinned `key`'s paths from: the texts its links were hashed as. */
function pinnedSnapshots(reg: Registry, key: string): PathSnapshot[] {
  const snaps = reg.pinSnapshots(key);
  if (snaps === undefined) throw new Error("a registry opened by Registry.open has pin snapshots");
  return snaps;
}

async function evalLock(
  ws: Workspace,
  evalId: string,
  opts: BuildLockOptions,
  extensions: Map<string, Promise<ExtensionLock>>,
): Promise<EvalLock> {
  const audience = selectTools(ws, { eval: evalId }).audience;
  const reg = await Registry.open(ws, evalId, {
    stateDir: opts.stateDir,
    env: opts.env,
    plugins: opts.plugins,
    audience,
    lock: "ignore",
  });
  opts.protectors?.push(reg.plugins.redactor);
  let part;
  try {
    for (const key of Object.keys(reg.pins)) {
      refuseLeavingLink(showPath(key), leavingLink(ws.root, pinnedSnapshots(reg, key)));
    }
    const source = {
      workspace: ws,
      selection: reg.selection,
      listing: reg.list(),
      pins: reg.pins,
      env: reg.env,
    };
    part = (await lockInputs(source)).part;
  } finally {
    await reg.close();
  }
  const ext: EvalLock["extensions"] = emptyRecord();
  for (const d of evalExtensions(ws, evalId)) {
    // In a check, the same extension may be held back for one eval and not another.
    const key = opts.checkAgainst ? `${evalId}\0${d.name}` : d.name;
    if (!extensions.has(key)) {
      extensions.set(key, listExtension(ws, evalId, d, opts, reg.plugins.redactor));
    }
    ext[d.name] = await extensions.get(key)!;
  }
  return { ...part, extensions: ext };
}

/**
 * Build the lock of a workspace. With `evals`, only those entries are rebuilt and the
 * existing lock's other entries are kept; without, the lock is rebuilt for every eval
 * (entries of evals that no longer exist are dropped).
 *
 * @example
 * ```ts
 * import { buildLock } from "./build_lock.ts";
 * import { loadWorkspace } from "../workspace/load_workspace.ts";
 * const ws = await loadWorkspace("examples");
 * const lock = await buildLock(ws, { evals: ["app/review"] });
 * Object.keys(lock.evals); // ["app/review"]
 * ```
 */
export async function buildLock(ws: Workspace, opts: BuildLockOptions = {}): Promise<LockFile> {
  const ids = opts.evals ?? [...ws.evals.keys()];
  const base = opts.evals ? (await readLockFile(ws))?.evals ?? {} : {};
  const evals: LockFile["evals"] = emptyRecord();
  for (const [id, e] of Object.entries(base)) if (ws.evals.has(id)) evals[id] = e;
  const extensions = new Map<string, Promise<ExtensionLock>>();
  try {
    for (const id of ids) evals[id] = await evalLock(ws, id, opts, extensions);
  } finally {
    await Promise.allSettled(extensions.values());
  }
  return { lockfileVersion: LOCK_VERSION, evals };
}
