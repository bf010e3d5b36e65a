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
 * timeout_ms = 30000                    # per request (start, list, call); default 120000
 * audience = "agent"                    # "agent" (default) | "human"
 * max_memory_mb = 512                   # resource limits of the server's process group
 * overflow = "artifact"                 # oversized results: "artifact" (default) | "truncate"
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
  readRoots,
  readString,
  readStringArray,
  readTimeoutMs,
  typeName,
} from "./fields.ts";
import { isValidName } from "./names.ts";
import { checkKeys, isTable, type Problems, type Table } from "./problems.ts";
import { isInsideWorkspace } from "./program_path.ts";
import type { Audience, Workspace } from "./types.ts";
import { isEnvName } from "../process/env.ts";

/** Keys an `[extensions.NAME]` table accepts. */
export const EXTENSION_KEYS = [
  "command",
  "args",
  "env",
  "artifact_roots",
  "timeout_ms",
  "audience",
  ...RESOURCE_LIMIT_KEYS,
  "overflow",
];

/** A declared extension (an MCP server started over stdio). */
export interface ExtensionDecl {
  /** Extension name: `[a-z0-9][a-z0-9_-]*`, at most 64 characters. */
  name: string;
  /** Command as written: a PATH name, or a workspace-relative path with `/`. */
  command: string;
  /** Literal argv (no placeholders). */
  args: string[];
  /** Variables added to the author's environment. */
  env: Record<string, string>;
  /** Workspace-relative folders odek artifact refs must resolve inside (fail-closed). */
  artifactRoots: string[];
  /** Deadline of each request to the server, in ms (default 120000). */
  timeoutMs: number;
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
  const command = readString(p, at, t, "command", true);
  if (command === "") p.add(`${at}.command`, "must not be empty");
  else if (command?.includes("/") && !isInsideWorkspace(ws.root, ws.root, command)) {
    p.add(`${at}.command`, "resolves outside the workspace");
  }
  const args = readStringArray(p, at, t, "args", false) ?? [];
  const env = readEnv(p, at, t.env);
  const artifactRoots = readRoots(p, at, t);
  checkRootsInside(p, ws.root, artifactRoots, at);
  const timeoutMs = readTimeoutMs(p, at, t.timeout_ms, LIMITS.defaultTimeoutMs);
  const audience = readString(p, at, t, "audience", false) ?? "agent";
  if (audience !== "agent" && audience !== "human") {
    p.add(`${at}.audience`, 'must be "agent" or "human"');
  }
  const limits = readLimits(p, at, t);
  const overflow = readOverflow(p, at, t, "artifact");
  if (p.list.length > before || command === undefined) return undefined;
  return {
    name,
    command,
    args,
    env,
    artifactRoots,
    timeoutMs,
    audience: audience as Audience,
    keyPath: at,
    ...(limits ? { limits } : {}),
    ...(t.overflow !== undefined ? { overflow } : {}),
  };
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
