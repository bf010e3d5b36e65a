/**
 * Building `toolhost.lock`: open each eval's registry (lock verification off), record its
 * listing and pins, start each admitted extension once to record the tools it lists, and
 * stop everything again.
 *
 * @module
 */

import { processEnv } from "../process/env.ts";
// @ts-types="@modelcontextprotocol/sdk/types"
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { PreparationFailed } from "../errors/errors.ts";
import { ExtensionServer } from "../mcp/extensions/extension_server.ts";
import type { Plugin } from "../plugins/api.ts";
import { Registry } from "../registry/registry.ts";
import { selectTools } from "../registry/selection.ts";
import { evalExtensions, type ExtensionDecl } from "../workspace/parse_extensions.ts";
import type { Workspace } from "../workspace/types.ts";
import { toolHashes } from "./canonical.ts";
import type { EvalLock, ExtensionLock, LockFile } from "./lock_file.ts";
import { LOCK_VERSION, readLockFile } from "./lock_file.ts";
import { emptyRecord } from "./own.ts";
import { registryPart } from "./registry_lock.ts";

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
}

/**
 * The lock entry of an extension from the tools it listed.
 *
 * @example
 * ```ts
 * import { extensionLock } from "./build_lock.ts";
 * extensionLock({ command: "srv", args: [] }, [{ name: "echo", inputSchema: { type: "object" } }]);
 * ```
 */
export function extensionLock(
  decl: Pick<ExtensionDecl, "command" | "args" | "remote" | "enabledTools" | "disabledTools">,
  tools: readonly Pick<Tool, "name" | "description" | "inputSchema">[],
): ExtensionLock {
  const out: ExtensionLock = {
    command: decl.command,
    args: [...decl.args],
    ...(decl.remote ? { url: decl.remote.url } : {}),
    ...(decl.enabledTools ? { enabled_tools: [...decl.enabledTools] } : {}),
    ...(decl.disabledTools ? { disabled_tools: [...decl.disabledTools] } : {}),
    tools: emptyRecord(),
  };
  for (const t of tools) out.tools[t.name] = toolHashes(t.description ?? "", t.inputSchema);
  return out;
}

async function listExtension(
  ws: Workspace,
  decl: ExtensionDecl,
  env: Record<string, string> | undefined,
): Promise<ExtensionLock> {
  const server = new ExtensionServer(decl, { root: ws.root, env: env ?? processEnv() });
  try {
    return extensionLock(decl, await server.listTools());
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
  let part;
  try {
    part = registryPart({ selection: reg.selection, listing: reg.list(), pins: reg.pins });
  } finally {
    await reg.close();
  }
  const ext: EvalLock["extensions"] = emptyRecord();
  for (const d of evalExtensions(ws, evalId)) {
    if (!extensions.has(d.name)) extensions.set(d.name, listExtension(ws, d, opts.env));
    ext[d.name] = await extensions.get(d.name)!;
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
 * import { writeLockFile } from "./lock_file.ts";
 * // await writeLockFile(ws, await buildLock(ws, {}));
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
