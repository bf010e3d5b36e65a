/**
 * `[extensions.NAME]` tables (MCP servers taken in as tool sources) and the eval key
 * `extensions = ["NAME", ...]` that admits them into an eval. The result is stored in
 * `ws.extra.extensions` (read it with {@link extensionsOf} / {@link evalExtensions}).
 *
 * ```toml
 * [extensions.fs]
 * command = "npx"                       # PATH lookup; with `/`: relative to the workspace root
 * args = ["-y", "@modelcontextprotocol/server-filesystem@2026.8.31", "docs"]
 * env = { LOG_LEVEL = "warn" }          # added to the author's environment
 * artifact_roots = ["out"]              # workspace-relative; odek refs must resolve inside
 * timeout_ms = 30000                    # per request (list, call); default 120000
 * connect_timeout_ms = 10000            # start + initialize; default: timeout_ms
 * audience = "agent"                    # "agent" (default) | "human"
 * max_memory_mb = 512                   # resource limits of the server's process group
 * overflow = "artifact"                 # oversized results: "artifact" (default) | "truncate"
 * enabled_tools = ["read_*"]            # only these of its tools (names or globs)
 * disabled_tools = ["write_file"]       # never these
 * execution_paths = ["ext/fs"]          # workspace files/folders the server runs, pinned
 *
 * [extensions.tracker]                  # a remote server: see parse_remote.ts
 * url = "https://mcp.example.com/mcp"
 * bearer_token_env_var = "TRACKER_TOKEN"
 *
 * [artifacts.app.evals.review]
 * audience = "agent"
 * extensions = ["fs"]                   # its tools are listed as <tool>_fs
 * ```
 *
 * @module
 */

import { LIMITS } from "../results/types.ts";
import {
  type OverflowMode,
  readLimits,
  readOverflow,
  RESOURCE_LIMIT_KEYS,
} from "../limits/parse_limits.ts";
import type { ResourceLimits } from "../limits/types.ts";
import {
  checkRootsInside,
  readExecutionPaths,
  readRoots,
  readString,
  readStringArray,
  typeName,
} from "./fields.ts";
import { isValidName } from "./names.ts";
import { checkKeys, isTable, mustBeOneOf, type Problems, type Table } from "./problems.ts";
import { isInsideWorkspace } from "./program_path.ts";
import type { Audience, Workspace } from "./types.ts";
import { isEnvName } from "../process/env.ts";
import {
  FILTER_KEYS,
  readFilter,
  readRemote,
  readTimeouts,
  REMOTE_KEYS,
  type RemoteDecl,
  TIMEOUT_KEYS,
} from "./parse_remote.ts";

export type { RemoteDecl } from "./parse_remote.ts";
import { readDeclaredSandbox, SANDBOX_KEYS, type SandboxPolicy } from "../sandbox/policy.ts";
import { noteDeclaredSandbox } from "../sandbox/apply.ts";

/** Keys an `[extensions.NAME]` table accepts. */
export const EXTENSION_KEYS = [
  "command",
  "args",
  "env",
  "artifact_roots",
  "audience",
  "execution_paths",
  ...RESOURCE_LIMIT_KEYS,
  "overflow",
  ...REMOTE_KEYS,
  ...TIMEOUT_KEYS,
  "timeout_ms",
  ...FILTER_KEYS,
  ...SANDBOX_KEYS,
];

/** Keys only an extension started as a process (`command`) takes. */
const COMMAND_ONLY_KEYS = ["args", "env", ...RESOURCE_LIMIT_KEYS];

/** A declared extension (an MCP server started over stdio, or a remote one). */
export interface ExtensionDecl {
  /** Extension name: `[a-z0-9][a-z0-9_-]*`, at most 64 characters. */
  name: string;
  /**
   * Command as written: a PATH name, or a workspace-relative path with `/`. Empty for a
   * remote extension (see {@link ExtensionDecl.remote}).
   */
  command: string;
  /** How a remote extension (`url = ...`) is reached; absent for a command. */
  remote?: RemoteDecl;
  /** Only the server's tools matching one of these names/globs are taken. */
  enabledTools?: string[];
  /** The server's tools matching one of these names/globs are never taken. */
  disabledTools?: string[];
  /** Literal argv (no placeholders). */
  args: string[];
  /**
   * Workspace-relative files and folders the server runs besides its command and operand
   * files (modules it imports, a package folder), pinned like a command tool's
   * `execution_paths`: by `toolhost lock`, and again before every start. Absent when none
   * are declared (and always for a remote extension).
   */
  executionPaths?: string[];
  /** Variables added to the author's environment. */
  env: Record<string, string>;
  /** Workspace-relative folders odek artifact refs must resolve inside (fail-closed). */
  artifactRoots: string[];
  /** Deadline of each request to the server, in ms (default 120000). */
  timeoutMs: number;
  /** Deadline of starting/connecting and initializing, ms (default: `timeoutMs`). */
  connectTimeoutMs?: number;
  /** Which evals may admit it. Default `"agent"`. */
  audience: Audience;
  /** TOML key path (`extensions.NAME`). */
  keyPath: string;
  /** Limits of the server's process group, when any is set. */
  limits?: ResourceLimits;
  /**
   * Text beyond 64 KiB in a result: `"artifact"` (default: written to the registry's
   * artifact directory, previewed and referenced) or `"truncate"`.
   */
  overflow?: OverflowMode;
  /** Confinement of the server (lib/sandbox); absent means `host`. */
  sandbox?: SandboxPolicy;
}

/** Extensions of a workspace and which evals admit them. */
export interface ExtensionsConfig {
  /** Declarations by name, in manifest order. */
  decls: Map<string, ExtensionDecl>;
  /** Eval id → admitted extension names, in declaration order. */
  byEval: Map<string, string[]>;
}

/**
 * Parse `[extensions.*]` and every eval's `extensions` key from the raw manifest, record
 * problems, and store the result in `ws.extra.extensions`. Run after evals are parsed.
 *
 * @example
 * ```ts
 * import { Problems } from "./problems.ts";
 * import { parseExtensions } from "./parse_extensions.ts";
 * // parseExtensions(new Problems("toolhost.toml", text), ws, data);
 * ```
 */
export function parseExtensions(p: Problems, ws: Workspace, data: Table): void {
  const cfg: ExtensionsConfig = { decls: new Map(), byEval: new Map() };
  const raw = data.extensions;
  if (raw !== undefined && !isTable(raw)) {
    p.add("extensions", `must be a table, not ${typeName(raw)}`);
  } else if (raw !== undefined) {
    for (const [name, t] of Object.entries(raw)) {
      const d = parseExtension(p, ws, name, t);
      if (d) cfg.decls.set(name, d);
    }
  }
  parseEvalAdmissions(p, ws, data, cfg);
  ws.extra.extensions = cfg;
}

function parseExtension(
  p: Problems,
  ws: Workspace,
  name: string,
  t: unknown,
): ExtensionDecl | undefined {
  const at = `extensions.${name}`;
  if (!isValidName(name)) {
    p.add(at, "extension names must match [a-z0-9][a-z0-9_-]* and be at most 64 characters");
    return undefined;
  }
  if (ws.artifacts.has(name)) {
    p.add(at, `is also an Artifact id; extension and Artifact names must differ`);
  }
  if (!isTable(t)) {
    p.add(at, `must be a table, not ${typeName(t)}`);
    return undefined;
  }
  const before = p.list.length;
  checkKeys(p, at, t, EXTENSION_KEYS);
  const remote = t.url !== undefined;
  const command = remote ? readRemoteOnly(p, at, t) : readCommand(p, ws, at, t);
  const args = readStringArray(p, at, t, "args", false) ?? [];
  const executionPaths = remote ? [] : readExecutionPaths(p, at, t);
  const env = readEnv(p, at, t.env);
  const artifactRoots = readRoots(p, at, t);
  checkRootsInside(p, ws.root, artifactRoots, at);
  const { timeoutMs, connectTimeoutMs } = readTimeouts(p, at, t, LIMITS.defaultTimeoutMs);
  const audience = readString(p, at, t, "audience", false) ?? "agent";
  if (audience !== "agent" && audience !== "human") {
    p.add(`${at}.audience`, mustBeOneOf(audience, ["agent", "human"]));
  }
  const limits = readLimits(p, at, t);
  const overflow = readOverflow(p, at, t, "artifact");
  const enabledTools = readFilter(p, at, t, "enabled_tools");
  const disabledTools = readFilter(p, at, t, "disabled_tools");
  const remoteDecl = remote ? readRemote(p, at, t) : undefined;
  const sandbox = readDeclaredSandbox(p, at, t);
  if (p.list.length > before || command === undefined) return undefined;
  const decl: ExtensionDecl = {
    name,
    command,
    args,
    env,
    artifactRoots,
    timeoutMs,
    ...(connectTimeoutMs !== timeoutMs ? { connectTimeoutMs } : {}),
    audience: audience as Audience,
    keyPath: at,
    ...(remoteDecl ? { remote: remoteDecl } : {}),
    ...(executionPaths.length > 0 ? { executionPaths } : {}),
    ...(enabledTools ? { enabledTools } : {}),
    ...(disabledTools ? { disabledTools } : {}),
    ...(limits ? { limits } : {}),
    ...(t.overflow !== undefined ? { overflow } : {}),
  };
  return noteDeclaredSandbox(decl, sandbox);
}

function readCommand(p: Problems, ws: Workspace, at: string, t: Table): string | undefined {
  if (t.command === undefined) {
    p.add(`${at}.command`, "is required (a string), or `url` for a remote server");
    return undefined;
  }
  const command = readString(p, at, t, "command", true);
  if (command === "") p.add(`${at}.command`, "must not be empty");
  else if (command?.includes("/") && !isInsideWorkspace(ws.root, ws.root, command)) {
    p.add(`${at}.command`, "resolves outside the workspace");
  }
  for (const k of REMOTE_KEYS.filter((k) => k !== "url" && t[k] !== undefined)) {
    p.add(`${at}.${k}`, "applies to a remote extension (`url`) only");
  }
  return command;
}

/** A remote table: no process keys. Its command is "" (see ExtensionDecl.command). */
function readRemoteOnly(p: Problems, at: string, t: Table): string {
  if (t.command !== undefined) p.add(`${at}.command`, "cannot be given together with `url`");
  for (const k of COMMAND_ONLY_KEYS.filter((k) => t[k] !== undefined)) {
    p.add(`${at}.${k}`, "applies to an extension started with `command` only");
  }
  if (t.execution_paths !== undefined) {
    p.add(
      `${at}.execution_paths`,
      "applies to an extension started with `command` only: a remote server's code runs " +
        "elsewhere, so no workspace file of it can be pinned",
    );
  }
  return "";
}

function readEnv(p: Problems, at: string, v: unknown): Record<string, string> {
  if (v === undefined) return {};
  if (!isTable(v)) {
    p.add(`${at}.env`, `must be a table of strings, not ${typeName(v)}`);
    return {};
  }
  const out: Record<string, string> = {};
  for (const [k, x] of Object.entries(v)) {
    if (!isEnvName(k)) {
      p.add(`${at}.env.${k}`, "variable names must match [A-Za-z_][A-Za-z0-9_]*");
    } else if (typeof x !== "string") {
      p.add(`${at}.env.${k}`, `must be a string, not ${typeName(x)}`);
    } else out[k] = x;
  }
  return out;
}

function parseEvalAdmissions(p: Problems, ws: Workspace, data: Table, cfg: ExtensionsConfig): void {
  for (const ev of ws.evals.values()) {
    const t = evalTable(data, ev.artifactId, ev.name);
    if (!t || t.extensions === undefined) continue;
    const names = readStringArray(p, ev.keyPath, t, "extensions", false) ?? [];
    const admitted: string[] = [];
    names.forEach((n, i) => {
      const k = `${ev.keyPath}.extensions[${i}]`;
      const d = cfg.decls.get(n);
      if (!d) {
        const known = [...cfg.decls.keys()].join(", ") || "(none)";
        if (!isTable(data.extensions) || !(n in data.extensions)) {
          p.add(k, `names no extension \`${n}\`; declared: ${known}`);
        }
      } else if (d.audience !== ev.audience) {
        p.add(k, `extension \`${n}\` serves ${d.audience} evals; this eval is ${ev.audience}`);
      } else if (admitted.includes(n)) p.add(k, `names extension \`${n}\` twice`);
      else admitted.push(n);
    });
    if (admitted.length > 0) cfg.byEval.set(ev.id, admitted);
  }
}

function evalTable(data: Table, artifactId: string, evalName: string): Table | undefined {
  const arts = data.artifacts;
  if (!isTable(arts)) return undefined;
  const a = arts[artifactId];
  if (!isTable(a) || !isTable(a.evals)) return undefined;
  const e = a.evals[evalName];
  return isTable(e) ? e : undefined;
}

/**
 * The parsed extensions of a loaded workspace (empty when none are declared).
 *
 * @example
 * ```ts
 * import { extensionsOf } from "./parse_extensions.ts";
 * // extensionsOf(ws).decls.get("fs")?.command
 * ```
 */
export function extensionsOf(ws: Workspace): ExtensionsConfig {
  const v = ws.extra.extensions as ExtensionsConfig | undefined;
  return v ?? { decls: new Map(), byEval: new Map() };
}

/**
 * The extensions an eval admits, in the order its `extensions` key names them.
 *
 * @example
 * ```ts
 * import { evalExtensions } from "./parse_extensions.ts";
 * // evalExtensions(ws, "app/review").map((d) => d.name)
 * ```
 */
export function evalExtensions(ws: Workspace, evalId: string): ExtensionDecl[] {
  const cfg = extensionsOf(ws);
  return (cfg.byEval.get(evalId) ?? []).map((n) => cfg.decls.get(n)!);
}
