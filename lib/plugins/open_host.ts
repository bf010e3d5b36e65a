/**
 * Opening the plugin host of a registry: resolve the active plugins (manifest-enabled
 * first-party plugins in `[plugins] enable` order, then library plugins passed in
 * `RegistryOptions.plugins`), run each `setup(api)`, and append the manifest's hook
 * commands. Creates nothing and runs no process: hooks run on calls.
 *
 * @module
 */

import { InvocationError, PreparationFailed } from "../errors/errors.ts";
import type { Selection } from "../registry/selection.ts";
import { RESERVED_TOOL_NAMES } from "../workspace/names.ts";
import { pluginsOf } from "../workspace/parse_plugins.ts";
import type { Workspace } from "../workspace/types.ts";
import { type HookOptions, isPlugin, type Plugin, type PluginApi } from "./api.ts";
import { knownPlugins } from "./catalog.ts";
import { withDeadline } from "./deadline.ts";
import { afterCallCommand, beforeCallCommand } from "./hook_command.ts";
import { OBSERVER_TIMEOUT_MS, PluginHost } from "./host.ts";
import { emptyParts, type HostParts } from "./host_parts.ts";
import { isNameGlob } from "./name_glob.ts";
import { PluginLog } from "./plugin_log.ts";
import { DEFAULT_HOOK_TIMEOUT_MS } from "../workspace/parse_plugins.ts";
import { isWithholdableName, withholdVariables } from "./withhold_env.ts";

/** Options of {@link openPluginHost}. */
export interface OpenPluginHostOptions {
  /** State directory. */
  stateDir: string;
  /**
   * The author's environment: the very object the registry starts processes from. The
   * variables plugins withhold (`api.withholdEnv`) are removed from it in place (the
   * registry passes its own copy).
   */
  env: Record<string, string>;
  /** Library plugins (TypeScript), after the manifest-enabled ones. */
  plugins?: readonly Plugin[];
  /** Checked before every hook command runs (see `HookCommandEnv.verify`). */
  verifyHooks?: () => Promise<string | undefined>;
}

/** Longest hook deadline a TypeScript hook may ask for, in ms. */
export const MAX_HOOK_TIMEOUT_MS = 600_000;

/**
 * The active plugins in run order.
 *
 * @throws {InvocationError} for a non-plugin value, a duplicate, or a library plugin
 * reusing a first-party name; {@link PreparationFailed} when an enabled plugin is missing.
 * @example
 * ```ts
 * import { activePlugins } from "./open_host.ts";
 * // activePlugins(ws, [myPlugin]).map((p) => p.name)
 * ```
 */
export function activePlugins(ws: Workspace, library: readonly Plugin[] = []): Plugin[] {
  const known = knownPlugins();
  const names = new Set<string>();
  for (const p of library) {
    if (!isPlugin(p)) {
      throw new InvocationError("RegistryOptions.plugins holds a value not made by definePlugin");
    }
    if (known.has(p.name)) {
      throw new InvocationError(`plugin name \`${p.name}\` is taken by a first-party plugin`);
    }
    if (names.has(p.name)) throw new InvocationError(`plugin \`${p.name}\` is given twice`);
    names.add(p.name);
  }
  const out: Plugin[] = [];
  for (const name of pluginsOf(ws).enable) {
    const p = known.get(name)?.plugin ?? library.find((l) => l.name === name);
    if (!p) {
      throw new PreparationFailed(
        `plugins.enable names \`${name}\`, which is not passed in RegistryOptions.plugins`,
      );
    }
    out.push(p);
  }
  for (const p of library) if (!out.includes(p)) out.push(p);
  return out;
}

function hookOptions(
  plugin: string,
  o: HookOptions | undefined,
): { tools?: readonly string[]; timeoutMs: number } {
  const timeoutMs = o?.timeoutMs ?? DEFAULT_HOOK_TIMEOUT_MS;
  if (!Number.isInteger(timeoutMs) || timeoutMs < 1 || timeoutMs > MAX_HOOK_TIMEOUT_MS) {
    throw new TypeError(
      `plugin \`${plugin}\`: timeoutMs must be an integer from 1 to ${MAX_HOOK_TIMEOUT_MS}`,
    );
  }
  if (o?.tools !== undefined && (!Array.isArray(o.tools) || !o.tools.every((g) => isNameGlob(g)))) {
    throw new TypeError(`plugin \`${plugin}\`: tools must be tool-name globs`);
  }
  return { ...(o?.tools ? { tools: Object.freeze([...o.tools]) } : {}), timeoutMs };
}

function makeApi(
  plugin: Plugin,
  parts: HostParts,
  ws: Workspace,
  env: Readonly<Record<string, string>>,
  log: PluginLog,
): PluginApi {
  const source = plugin.name;
  const config = Object.freeze(structuredClone(pluginsOf(ws).configs[plugin.name] ?? {}));
  const observer = <F>(fn: F) => ({ source, fn, timeoutMs: OBSERVER_TIMEOUT_MS });
  return Object.freeze(
    {
      name: plugin.name,
      config,
      stateDir: parts.stateDir,
      workspaceRoot: ws.root,
      ...(parts.evalId ? { evalId: parts.evalId } : {}),
      env,
      beforeCall: (fn, o) => void parts.before.push({ source, fn, ...hookOptions(source, o) }),
      afterCall: (fn, o) => void parts.after.push({ source, fn, ...hookOptions(source, o) }),
      callEnded: (fn) => void parts.ended.push(observer(fn)),
      sessionStarted: (fn) => void parts.sessionStarted.push(observer(fn)),
      sessionEnded: (fn) => void parts.sessionEnded.push(observer(fn)),
      redact: (value) => parts.redactor.add(value),
      withholdEnv: (name) => {
        if (!isWithholdableName(name)) {
          throw new TypeError(`plugin \`${source}\`: withholdEnv needs a variable name`);
        }
        parts.withheld.add(name);
      },
      log: (message) => log.write(source, "log", message),
      onClose: (fn) => void parts.closers.push({ source, fn }),
    } satisfies PluginApi,
  );
}

function registerTools(plugin: Plugin, parts: HostParts, ws: Workspace, sel: Selection): void {
  const config = Object.freeze(structuredClone(pluginsOf(ws).configs[plugin.name] ?? {}));
  for (const tool of plugin.tools) {
    if (parts.tools.has(tool.name)) {
      throw new PreparationFailed(`plugin tool \`${tool.name}\` is provided by two plugins`);
    }
    if (tool.alwaysListed && sel.audience === "agent") {
      const clash = RESERVED_TOOL_NAMES.includes(tool.name) ||
        sel.tools.some((t) => t.name === tool.name);
      if (clash) {
        throw new PreparationFailed(
          `plugin \`${plugin.name}\`'s always-listed tool \`${tool.name}\` clashes with a listed tool`,
        );
      }
    }
    parts.tools.set(tool.name, { plugin: plugin.name, tool, config });
  }
}

/**
 * Open the plugin host of a selection. Every declared plugin tool must come from an
 * active plugin.
 *
 * @throws {PreparationFailed} when a plugin's setup fails (details in the operator log)
 * or a declared plugin tool has no active plugin.
 * @example
 * ```ts
 * import { openPluginHost } from "./open_host.ts";
 * // const host = await openPluginHost(ws, selection, { stateDir, env, plugins: [myPlugin] });
 * ```
 */
export async function openPluginHost(
  ws: Workspace,
  sel: Selection,
  opts: OpenPluginHostOptions,
): Promise<PluginHost> {
  const plugins = activePlugins(ws, opts.plugins);
  const cfg = pluginsOf(ws);
  const parts = emptyParts(opts.stateDir, sel.evalId, ws.root);
  const log = new PluginLog(opts.stateDir, parts.redactor, ws.root);
  const env = Object.freeze({ ...opts.env });
  try {
    for (const plugin of plugins) {
      registerTools(plugin, parts, ws, sel);
      if (!plugin.setup) continue;
      const api = makeApi(plugin, parts, ws, env, log);
      const out = await withDeadline(() => plugin.setup!(api), OBSERVER_TIMEOUT_MS);
      if (!out.ok) {
        log.write(plugin.name, "setup", out.detail);
        throw new PreparationFailed(
          `plugin \`${plugin.name}\` failed to set up (details are in plugins.log in the state directory)`,
        );
      }
    }
    checkDeclaredTools(sel, parts);
    // The registry, its sessions, hook commands and extensions all start from this object.
    withholdVariables(opts.env, parts.withheld);
  } catch (e) {
    await new PluginHost(parts).close();
    throw e;
  } finally {
    log.close();
  }
  const henv = {
    root: ws.root,
    stateDir: opts.stateDir,
    env: opts.env,
    redactor: parts.redactor,
    sandbox: { ws, scope: sel.scope, owner: ownerOf(ws, sel) },
    ...(opts.verifyHooks ? { verify: opts.verifyHooks } : {}),
  };
  for (const h of cfg.hooks) {
    const entry = {
      source: h.keyPath,
      ...(h.tools ? { tools: h.tools } : {}),
      timeoutMs: h.timeoutMs + 5000,
    };
    if (h.event === "before_call") parts.before.push({ ...entry, fn: beforeCallCommand(h, henv) });
    else parts.after.push({ ...entry, fn: afterCallCommand(h, henv) });
  }
  return new PluginHost(parts);
}

function checkDeclaredTools(sel: Selection, parts: HostParts): void {
  for (const t of sel.tools) {
    if (t.decl.type !== "builtin" || t.decl.plugin === undefined) continue;
    const active = parts.tools.get(t.decl.builtin);
    if (!active || active.plugin !== t.decl.plugin.name) {
      throw new PreparationFailed(
        `${t.decl.keyPath}.builtin: plugin \`${t.decl.plugin.name}\` is not active in this ` +
          "registry; pass it in RegistryOptions.plugins",
      );
    }
  }
}

/** The Artifact a selection belongs to (its eval's), for hooks under `sandbox = "write"`. */
function ownerOf(ws: Workspace, sel: Selection): string | undefined {
  return sel.evalId === undefined ? undefined : ws.evals.get(sel.evalId)?.artifactId;
}
