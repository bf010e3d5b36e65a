/**
 * `[plugins]` (which plugins are enabled, and each plugin's own configuration table) and
 * `[[hooks.before_call]]` / `[[hooks.after_call]]` (hook commands speaking the json
 * protocol). The result is stored in `ws.extra.plugins` (read it with {@link pluginsOf}).
 *
 * ```toml
 * [plugins]
 * enable = ["policy", "audit-log"]      # run in this order
 *
 * [plugins.policy]                      # validated by the plugin itself
 * default = "allow"
 *
 * [[hooks.before_call]]
 * command = "hooks/review.sh"           # PATH name, or workspace-relative with `/`
 * args = ["--strict"]
 * tools = ["shell_exec_*", "files_*"]   # optional published-name globs
 * timeout_ms = 5000                     # default 10000
 * ```
 *
 * @module
 */

import { BUILTIN_SPECS } from "../builtins/specs.ts";
import type { Plugin } from "../plugins/api.ts";
import { knownPlugins } from "../plugins/catalog.ts";
import { isNameGlob } from "../plugins/name_glob.ts";
import { readString, readStringArray, readTimeoutMs, typeName } from "./fields.ts";
import { checkKeys, isTable, type Problems, suggest, type Table } from "./problems.ts";
import { isInsideWorkspace } from "./program_path.ts";
import { renderDescription } from "./description.ts";
import { readDeclaredSandbox, type SandboxPolicy } from "../sandbox/policy.ts";
import { noteDeclaredSandbox } from "../sandbox/apply.ts";
import type { BuiltinName, BuiltinToolDecl, Workspace } from "./types.ts";

/** Keys of a hook command entry. */
export const HOOK_KEYS = [
  "command",
  "args",
  "tools",
  "timeout_ms",
  "sandbox",
  "network",
  "sandbox_read",
  "sandbox_write",
] as const;

/** Default deadline of a hook (command or TypeScript), in ms. */
export const DEFAULT_HOOK_TIMEOUT_MS = 10_000;

/** Hook events a manifest may declare. */
export type HookEvent = "before_call" | "after_call";

/** A `[[hooks.EVENT]]` entry. */
export interface HookCommandDecl {
  /** Which event. */
  event: HookEvent;
  /** Command as written: a PATH name, or a workspace-relative path with `/`. */
  command: string;
  /** Literal argv. */
  args: string[];
  /** Published tool-name globs the hook runs for; absent = every tool. */
  tools?: string[];
  /** Deadline in ms (default 10000). */
  timeoutMs: number;
  /** TOML key path, e.g. `hooks.before_call[0]`. */
  keyPath: string;
  /** Confinement of the hook command (lib/sandbox); absent means `host`. */
  sandbox?: SandboxPolicy;
}

/** The parsed plugin tables. */
export interface PluginsConfig {
  /** `[plugins] enable`, in manifest order. */
  enable: string[];
  /** `[plugins.NAME]` tables by plugin name (validated by the plugin). */
  configs: Record<string, Record<string, unknown>>;
  /** Hook commands, before_call entries first, each event in manifest order. */
  hooks: HookCommandDecl[];
}

/** A plugin tool a declaration may name with `builtin = "<tool>"`. */
export interface PluginToolRef {
  /** The providing plugin. */
  plugin: string;
  /** Default description. */
  description: string;
  /** Input schema. */
  inputSchema: Record<string, unknown>;
}

/**
 * The plugin tools declarations may name: tools of first-party plugins named in
 * `[plugins] enable`, and of the library plugins given. Lenient on malformed tables
 * (those are reported by {@link parsePlugins}); tools whose names clash with a built-in
 * are left out.
 *
 * @example
 * ```ts
 * import { pluginToolIndex } from "./parse_plugins.ts";
 * pluginToolIndex({ plugins: { enable: ["policy"] } }).size; // 0: policy has no tools
 * ```
 */
export function pluginToolIndex(
  data: Table,
  library: readonly Plugin[] = [],
): Map<string, PluginToolRef> {
  const known = knownPlugins(library);
  const raw = isTable(data.plugins) ? data.plugins.enable : undefined;
  const enabled = new Set(Array.isArray(raw) ? raw.filter((n) => typeof n === "string") : []);
  const out = new Map<string, PluginToolRef>();
  for (const [name, k] of known) {
    if (k.firstParty && !enabled.has(name)) continue;
    for (const t of k.plugin.tools) {
      if (Object.hasOwn(BUILTIN_SPECS, t.name) || out.has(t.name)) continue;
      out.set(t.name, { plugin: name, description: t.description, inputSchema: t.inputSchema });
    }
  }
  return out;
}

/** A `builtin = "<plugin tool>"` declaration being parsed. */
export interface PluginToolTable {
  /** TOML key path of the tool table. */
  at: string;
  /** Declared short name. */
  name: string;
  /** The table. */
  t: Table;
  /** Declaring Artifact. */
  artifactId: string;
  /** Which view. */
  view: "agent_tools" | "human_tools";
  /** The plugin tool's name. */
  builtin: string;
  /** What the plugin provides. */
  ref: PluginToolRef;
}

/**
 * The declaration of a plugin tool on an Artifact: model input only (no `args`), agent
 * views only, an optional description template.
 *
 * @example
 * ```ts
 * import { Problems } from "./problems.ts";
 * import { pluginToolDecl } from "./parse_plugins.ts";
 * // pluginToolDecl(p, { at, name: "tail", t: { builtin: "audit_tail" }, artifactId: "app", view: "agent_tools", builtin: "audit_tail", ref })
 * ```
 */
export function pluginToolDecl(p: Problems, d: PluginToolTable): BuiltinToolDecl | undefined {
  const before = p.list.length;
  if (d.t.args !== undefined) {
    p.add(`${d.at}.args`, "plugin tools take the model's input; remove `args`");
  }
  if (d.view === "human_tools") {
    p.add(`${d.at}.builtin`, "plugin tools take the model's input; declare them under agent_tools");
  }
  const template = readString(p, d.at, d.t, "description", false) ?? d.ref.description;
  const rendered = renderDescription(template, d.artifactId);
  if (!rendered.ok) p.add(`${d.at}.description`, rendered.reason);
  if (p.list.length > before) return undefined;
  return {
    type: "builtin",
    name: d.name,
    builtin: d.builtin as BuiltinName,
    description: template,
    keyPath: d.at,
    plugin: { name: d.ref.plugin, inputSchema: d.ref.inputSchema },
  };
}

/**
 * Parse `[plugins]` and `[hooks]`, record problems, and store the result in
 * `ws.extra.plugins`.
 *
 * @example
 * ```ts
 * import { Problems } from "./problems.ts";
 * import { parsePlugins } from "./parse_plugins.ts";
 * // parsePlugins(new Problems("toolhost.toml", text), ws, data);
 * ```
 */
export function parsePlugins(
  p: Problems,
  ws: Workspace,
  data: Table,
  library: readonly Plugin[] = [],
): void {
  const cfg: PluginsConfig = { enable: [], configs: {}, hooks: [] };
  parsePluginTable(p, ws.root, data.plugins, library, cfg);
  parseHooks(p, ws, data.hooks, cfg);
  ws.extra.plugins = cfg;
}

function parsePluginTable(
  p: Problems,
  root: string,
  raw: unknown,
  library: readonly Plugin[],
  cfg: PluginsConfig,
): void {
  if (raw === undefined) return;
  if (!isTable(raw)) return p.add("plugins", `must be a table, not ${typeName(raw)}`);
  const known = knownPlugins(library);
  const names = [...known.keys()];
  const enable = readStringArray(p, "plugins", raw, "enable", false) ?? [];
  enable.forEach((n, i) => {
    const at = `plugins.enable[${i}]`;
    if (!known.has(n)) {
      const hint = suggest(n, names);
      p.add(
        at,
        `names no plugin${hint ? ` (did you mean \`${hint}\`?)` : ""}; known: ${names.join(", ")}`,
      );
    } else if (cfg.enable.includes(n)) p.add(at, `enables \`${n}\` twice`);
    else cfg.enable.push(n);
  });
  for (const [key, table] of Object.entries(raw)) {
    if (key === "enable") continue;
    const k = known.get(key);
    if (!k) {
      const hint = suggest(key, ["enable", ...names]);
      p.add(
        `plugins.${key}`,
        `unknown key${hint ? ` (did you mean \`${hint}\`?)` : ""}; allowed keys: enable, ${
          names.join(", ")
        }`,
      );
      continue;
    }
    if (!isTable(table)) {
      p.add(
        `plugins.${key}`,
        `must be a table (the plugin's configuration), not ${typeName(table)}`,
      );
      continue;
    }
    if (k.firstParty && !cfg.enable.includes(key)) {
      p.add(
        `plugins.${key}`,
        `configures \`${key}\`, which is not enabled; add it to plugins.enable`,
      );
    }
    checkPluginConfig(p, k.plugin, table, root);
    cfg.configs[key] = table;
  }
  checkToolClashes(p, known, cfg);
}

function checkPluginConfig(p: Problems, plugin: Plugin, table: Table, root: string): void {
  const at = `plugins.${plugin.name}`;
  if (!plugin.validateConfig) {
    if (Object.keys(table).length > 0) {
      p.add(at, `plugin \`${plugin.name}\` takes no configuration`);
    }
    return;
  }
  try {
    plugin.validateConfig(
      table,
      (key, message) => p.add(key === "" ? at : `${at}.${key}`, message),
      { root },
    );
  } catch {
    p.add(at, `plugin \`${plugin.name}\` could not validate its configuration`);
  }
}

function checkToolClashes(
  p: Problems,
  known: ReturnType<typeof knownPlugins>,
  cfg: PluginsConfig,
): void {
  const owner = new Map<string, string>();
  cfg.enable.forEach((name, i) => {
    for (const t of known.get(name)!.plugin.tools) {
      if (Object.hasOwn(BUILTIN_SPECS, t.name)) {
        p.add(
          `plugins.enable[${i}]`,
          `plugin \`${name}\`'s tool \`${t.name}\` clashes with a built-in`,
        );
      } else if (owner.has(t.name)) {
        p.add(
          `plugins.enable[${i}]`,
          `plugin \`${name}\`'s tool \`${t.name}\` is also provided by \`${owner.get(t.name)}\``,
        );
      } else owner.set(t.name, name);
    }
  });
}

function parseHooks(p: Problems, ws: Workspace, raw: unknown, cfg: PluginsConfig): void {
  if (raw === undefined) return;
  if (!isTable(raw)) return p.add("hooks", `must be a table, not ${typeName(raw)}`);
  checkKeys(p, "hooks", raw, ["before_call", "after_call"]);
  for (const event of ["before_call", "after_call"] as const) {
    const list = raw[event];
    if (list === undefined) continue;
    if (!Array.isArray(list)) {
      p.add(`hooks.${event}`, `must be an array of tables (\`[[hooks.${event}]]\`)`);
      continue;
    }
    list.forEach((t, i) => {
      const d = parseHook(p, ws, event, `hooks.${event}[${i}]`, t);
      if (d) cfg.hooks.push(d);
    });
  }
}

function parseHook(
  p: Problems,
  ws: Workspace,
  event: HookEvent,
  at: string,
  t: unknown,
): HookCommandDecl | undefined {
  if (!isTable(t)) {
    p.add(at, `must be a table, not ${typeName(t)}`);
    return undefined;
  }
  const before = p.list.length;
  checkKeys(p, at, t, HOOK_KEYS);
  const command = readString(p, at, t, "command", true);
  if (command !== undefined) checkCommand(p, ws, `${at}.command`, command);
  const args = readStringArray(p, at, t, "args", false) ?? [];
  args.forEach((a, i) => a.includes("\0") && p.add(`${at}.args[${i}]`, "must not contain NUL"));
  const tools = readStringArray(p, at, t, "tools", false);
  tools?.forEach((g, i) => {
    if (!isNameGlob(g)) {
      p.add(
        `${at}.tools[${i}]`,
        "must be a tool-name glob: [a-z0-9_-] with `*` and `?`, 1–128 characters",
      );
    }
  });
  if (tools !== undefined && tools.length === 0) {
    p.add(`${at}.tools`, "must name at least one glob; remove it to match every tool");
  }
  const timeoutMs = readTimeoutMs(p, at, t.timeout_ms, DEFAULT_HOOK_TIMEOUT_MS);
  const sandbox = readDeclaredSandbox(p, at, t);
  if (p.list.length > before || command === undefined) return undefined;
  const decl: HookCommandDecl = {
    event,
    command,
    args,
    ...(tools ? { tools } : {}),
    timeoutMs,
    keyPath: at,
  };
  return noteDeclaredSandbox(decl, sandbox);
}

function checkCommand(p: Problems, ws: Workspace, at: string, command: string): void {
  if (command === "" || command.includes("\0")) {
    p.add(at, "must be a nonempty program name or workspace-relative path");
  } else if (command.startsWith("/")) {
    p.add(at, "must be a program name looked up on PATH or a path relative to the workspace root");
  } else if (command.includes("/") && !isInsideWorkspace(ws.root, ws.root, command)) {
    p.add(at, "resolves outside the workspace");
  }
}

/**
 * The parsed plugin tables of a loaded workspace (empty when none are declared).
 *
 * @example
 * ```ts
 * import { pluginsOf } from "./parse_plugins.ts";
 * // pluginsOf(ws).enable → ["policy"]
 * ```
 */
export function pluginsOf(ws: Workspace): PluginsConfig {
  const v = ws.extra.plugins as PluginsConfig | undefined;
  return v ?? { enable: [], configs: {}, hooks: [] };
}
