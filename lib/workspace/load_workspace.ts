/**
 * Load and validate a workspace: parse `toolhost.toml`, check every declaration, resolve
 * Artifact paths and children. Runs no process and creates nothing.
 *
 * @module
 */

import { findWorkspaceRoot, MANIFEST_NAME, readManifest } from "./manifest_file.ts";
import { linkChildren, resolveArtifactPath } from "./artifact_paths.ts";
import { readNamedTable, readRoots, readString, readStringArray, typeName } from "./fields.ts";
import { parseSession, parseTool, type ToolView } from "./parse_views.ts";
import { parseExtensions } from "./parse_extensions.ts";
import { parsePlugins, pluginToolIndex, type PluginToolRef } from "./parse_plugins.ts";
import type { Plugin } from "../plugins/api.ts";
import { checkKeys, isTable, mustBeOneOf, Problems, type Table } from "./problems.ts";
import { checkWorkspaceRules } from "./workspace_rules.ts";
import { checkDroppedCommands, checkReferencesDeclared } from "./loose_rules.ts";
import type { Artifact, EvalDecl, Workspace } from "./types.ts";
import { readWorkspaceSandbox } from "../sandbox/policy.ts";
import { applySandboxDefaults } from "../sandbox/apply.ts";
import { confinableDecls } from "../sandbox/decls.ts";

const TOP_KEYS = ["artifacts", "extensions", "plugins", "hooks", "sandbox"] as const;
const ARTIFACT_KEYS = ["path", "evals", "views", "artifact_roots"] as const;
const VIEW_KEYS = ["agent_tools", "human_tools", "agent_sessions"] as const;
const EVAL_KEYS = ["audience", "references", "extensions"] as const;

/** Options for {@link loadWorkspace}. */
export interface LoadOptions {
  /** Folder to search upward from when `root` is not given. Default: `process.cwd()`. */
  cwd?: string;
  /**
   * How errors about a missing or wrong `root` name it: the CLI passes `--repo`.
   * Default `root` (this function's parameter).
   */
  rootFlag?: string;
  /**
   * Library plugins whose tools declarations may name (`builtin = "<tool>"`) and whose
   * `[plugins.NAME]` tables they validate; pass the same list to `Registry.open`.
   * Default none (first-party plugins are always known).
   */
  plugins?: readonly Plugin[];
}

/**
 * Load the workspace at `root` (a folder holding toolhost.toml), or the nearest one above
 * the current directory when `root` is omitted. Throws {@link DeclarationError} listing
 * every problem with its TOML key path.
 *
 * @example
 * ```ts
 * import { loadWorkspace } from "./load_workspace.ts";
 * const ws = await loadWorkspace("examples");
 * console.log([...ws.evals.keys()]);
 * ```
 */
export function loadWorkspace(root?: string, opts: LoadOptions = {}): Promise<Workspace> {
  try {
    return Promise.resolve(loadWorkspaceSync(root, opts));
  } catch (e) {
    return Promise.reject(e);
  }
}

/**
 * Synchronous form of {@link loadWorkspace}.
 *
 * @example
 * ```ts
 * import { loadWorkspaceSync } from "./load_workspace.ts";
 * const ws = loadWorkspaceSync("examples");
 * ```
 */
export function loadWorkspaceSync(root?: string, opts: LoadOptions = {}): Workspace {
  const dir = findWorkspaceRoot(root, opts.cwd, opts.rootFlag ?? "root");
  const manifest = readManifest(dir);
  const p = new Problems(MANIFEST_NAME, manifest.text);
  checkKeys(p, "", manifest.data, TOP_KEYS);
  const ws: Workspace = {
    root: dir,
    manifestPath: manifest.path,
    artifacts: new Map(),
    evals: new Map(),
    // The parsed manifest as written: the lock pins the declarations toolhost does not
    // resolve itself (eval and Artifact tables, top-level tables), whatever keys they hold.
    extra: { manifest: manifest.data },
  };
  const pluginTools = pluginToolIndex(manifest.data, opts.plugins);
  const arts = manifest.data.artifacts;
  if (arts === undefined) p.add("artifacts", "declare at least one `[artifacts.ID]` table");
  else if (!isTable(arts)) p.add("artifacts", `must be a table, not ${typeName(arts)}`);
  else {
    for (const [id, t] of Object.entries(arts)) {
      const a = parseArtifact(p, dir, id, t, pluginTools);
      if (a) ws.artifacts.set(id, a);
    }
  }
  linkChildren(p, ws.artifacts);
  for (const a of ws.artifacts.values()) {
    for (const ev of Object.values(a.evals)) ws.evals.set(ev.id, ev);
  }
  checkWorkspaceRules(p, ws);
  checkReferencesDeclared(p, manifest.data);
  checkDroppedCommands(p, ws, manifest.data);
  parseExtensions(p, ws, manifest.data);
  parsePlugins(p, ws, manifest.data, opts.plugins);
  const sandbox = readWorkspaceSandbox(p, manifest.data.sandbox);
  if (sandbox !== undefined) ws.sandbox = sandbox;
  applySandboxDefaults(p, confinableDecls(ws), sandbox);
  p.throwIfAny();
  return ws;
}

function parseArtifact(
  p: Problems,
  root: string,
  id: string,
  raw: unknown,
  pluginTools: ReadonlyMap<string, PluginToolRef>,
): Artifact | undefined {
  const at = `artifacts.${id}`;
  const t = readNamedTable(p, at, "Artifact IDs", id, raw);
  if (!t) return undefined;
  checkKeys(p, at, t, ARTIFACT_KEYS);
  const rel = readString(p, at, t, "path", true);
  const where = rel === undefined ? undefined : resolveArtifactPath(p, `${at}.path`, root, rel);
  const artifactRoots = readRoots(p, at, t);
  const a: Artifact = {
    id,
    kind: where?.kind ?? "folder",
    relPath: rel ?? "",
    physicalPath: where?.physicalPath ?? "",
    cwd: where?.cwd ?? "",
    children: {},
    evals: {},
    agentTools: {},
    humanTools: {},
    sessions: {},
    artifactRoots,
    keyPath: at,
  };
  // Parsed even when the path is wrong, so their mistakes come in the same round.
  parseEvals(p, a, t.evals);
  parseViews(p, a, t.views, pluginTools);
  return where && rel !== undefined ? a : undefined;
}

function parseEvals(p: Problems, a: Artifact, raw: unknown): void {
  if (raw === undefined) return;
  const at = `${a.keyPath}.evals`;
  if (!isTable(raw)) return p.add(at, `must be a table, not ${typeName(raw)}`);
  for (const [name, value] of Object.entries(raw)) {
    const k = `${at}.${name}`;
    const t = readNamedTable(p, k, "eval names", name, value);
    if (!t) continue;
    checkKeys(p, k, t, EVAL_KEYS);
    const audience = readString(p, k, t, "audience", true);
    if (audience !== undefined && audience !== "agent" && audience !== "human") {
      p.add(`${k}.audience`, mustBeOneOf(audience, ["agent", "human"]));
      continue;
    }
    const references = readStringArray(p, k, t, "references", false) ?? [];
    if (audience === undefined) continue;
    const ev: EvalDecl = {
      name,
      id: `${a.id}/${name}`,
      artifactId: a.id,
      audience,
      references,
      keyPath: k,
    };
    a.evals[name] = ev;
  }
}

function parseViews(
  p: Problems,
  a: Artifact,
  raw: unknown,
  pluginTools: ReadonlyMap<string, PluginToolRef>,
): void {
  if (raw === undefined) return;
  const at = `${a.keyPath}.views`;
  if (!isTable(raw)) return p.add(at, `must be a table, not ${typeName(raw)}`);
  checkKeys(p, at, raw, VIEW_KEYS);
  for (const view of ["agent_tools", "human_tools"] as ToolView[]) {
    const tools = raw[view];
    if (tools === undefined) continue;
    if (!isTable(tools)) {
      p.add(`${at}.${view}`, `must be a table, not ${typeName(tools)}`);
      continue;
    }
    const into = view === "agent_tools" ? a.agentTools : a.humanTools;
    for (const [name, t] of Object.entries(tools as Table)) {
      const decl = parseTool(p, `${at}.${view}.${name}`, name, t, a.id, view, pluginTools);
      if (decl) into[name] = decl;
    }
  }
  const sessions = raw.agent_sessions;
  if (sessions === undefined) return;
  if (!isTable(sessions)) return p.add(`${at}.agent_sessions`, "must be a table");
  for (const [name, t] of Object.entries(sessions)) {
    const s = parseSession(p, `${at}.agent_sessions.${name}`, name, t);
    if (s) a.sessions[name] = s;
  }
}
