/**
 * The canonical declarations `toolhost.lock` pins. Each is built generically from what
 * toolhost parsed — every key of a tool's, session's or extension's resolved declaration
 * (defaults applied), and every key of the eval, Artifact and top-level tables as
 * written — so a key added to the manifest later is covered without being named here.
 * Only keys that are pinned another way (the rendered description and input schema,
 * hashed), or that only say where a declaration sits (`keyPath`, its name), are left out.
 *
 * Keys are rendered in the manifest's snake_case. Values under an `env` or `headers`
 * table are pinned by SHA-256, never copied: a lock file must not become a second place
 * a secret is written down. TOML dates become their text.
 *
 * @module
 */

import { pluginsOf } from "../workspace/parse_plugins.ts";
import type { ExtensionDecl } from "../workspace/parse_extensions.ts";
import type { EvalDecl, SessionDecl, ToolDecl, Workspace } from "../workspace/types.ts";
import { sha256Hex } from "./canonical.ts";

/** A canonical declaration: a JSON object, snake_case keys. */
export type Declaration = Record<string, unknown>;

/** Keys that are pinned another way or only locate a declaration. */
const NOT_PINNED = new Set(["keyPath", "name", "description", "inputSchema"]);
/** Tables whose values are pinned by hash only. */
const HASHED_TABLES = new Set(["env", "headers", "httpHeaders", "http_headers"]);

function snake(key: string): string {
  return key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v) && !(v instanceof Date);
}

/**
 * A JSON value for `v`: key order kept for now (the lock sorts on output), dates as text,
 * bigints as decimal text, functions and undefined dropped; `hashed` replaces every
 * string leaf with `sha256:<hex>`.
 */
function plain(v: unknown, hashed: boolean): unknown {
  if (typeof v === "string") return hashed ? `sha256:${sha256Hex(v)}` : v;
  if (typeof v === "number" || typeof v === "boolean" || v === null) return v;
  if (typeof v === "bigint") return v.toString();
  if (v instanceof Date) return v.toISOString();
  if (Array.isArray(v)) return v.map((x) => plain(x, hashed) ?? null);
  if (isRecord(v)) {
    const out: Record<string, unknown> = Object.create(null);
    for (const [k, x] of Object.entries(v)) {
      const value = plain(x, hashed || HASHED_TABLES.has(k));
      if (value !== undefined) out[k] = value;
    }
    return out;
  }
  if (v !== undefined && typeof v !== "function" && typeof v !== "symbol") return String(v);
  return undefined;
}

/**
 * The canonical form of a parsed declaration object: every own key but `omit` (and the
 * keys pinned another way), snake_cased, with values made plain JSON.
 *
 * @example
 * ```ts
 * import { canonicalDeclaration } from "./declaration.ts";
 * canonicalDeclaration({ command: "grep", timeoutMs: 100, keyPath: "x", env: { A: "s" } });
 * // { command: "grep", timeout_ms: 100, env: { A: "sha256:…" } }
 * ```
 */
export function canonicalDeclaration(
  decl: object,
  omit: readonly string[] = [],
): Declaration {
  const out: Declaration = Object.create(null);
  for (const [k, v] of Object.entries(decl)) {
    if (NOT_PINNED.has(k) || omit.includes(k)) continue;
    const value = plain(v, HASHED_TABLES.has(k));
    if (value !== undefined) out[snake(k)] = value;
  }
  return out;
}

/** The manifest as written (kept by `loadWorkspace`); empty for a hand-built workspace. */
function manifestData(ws: Pick<Workspace, "extra">): Record<string, unknown> {
  const m = ws.extra.manifest;
  return isRecord(m) ? m : {};
}

function table(v: unknown, ...path: string[]): Record<string, unknown> {
  let cur = v;
  for (const k of path) cur = isRecord(cur) && Object.hasOwn(cur, k) ? cur[k] : undefined;
  return isRecord(cur) ? cur : {};
}

/**
 * A tool's canonical declaration: its resolved declaration, and its Artifact's table as
 * written (path, artifact roots, any later key) without its evals and views.
 *
 * @example
 * ```ts
 * import { toolDeclaration } from "./declaration.ts";
 * // toolDeclaration(ws, "app", decl).args
 * ```
 */
export function toolDeclaration(
  ws: Pick<Workspace, "extra">,
  artifactId: string,
  decl: ToolDecl,
): Declaration {
  const artifact = table(manifestData(ws), "artifacts", artifactId);
  return {
    ...canonicalDeclaration(decl),
    artifact: canonicalDeclaration(artifact, ["evals", "views"]),
  };
}

/**
 * A session's canonical declaration: start and stop commands, args and execution paths,
 * limits, and every later key.
 *
 * @example
 * ```ts
 * import { sessionDeclaration } from "./declaration.ts";
 * // sessionDeclaration(ws.artifacts.get("app")!.sessions.web).start
 * ```
 */
export function sessionDeclaration(decl: SessionDecl): Declaration {
  return canonicalDeclaration(decl);
}

/**
 * An extension's canonical declaration: command, args, env (values hashed), timeouts,
 * limits, overflow and every later key (a URL, tool filters, header variable names).
 *
 * @example
 * ```ts
 * import { extensionDeclaration } from "./declaration.ts";
 * extensionDeclaration({ name: "fx", command: "srv", args: [], keyPath: "extensions.fx" });
 * // { command: "srv", args: [] }
 * ```
 */
export function extensionDeclaration(decl: Partial<ExtensionDecl> & object): Declaration {
  return canonicalDeclaration(decl);
}

/** Top-level tables pinned per tool, session or extension instead. */
const PER_ENTRY_TABLES = new Set(["artifacts", "extensions"]);

/**
 * An eval's own canonical declaration, which every tool of the eval depends on: its
 * table as written (audience, references, any later key — the extensions it admits are
 * pinned one by one), the plugins and hook commands in effect (resolved), and every other
 * top-level table as written (a workspace-wide default such as `[sandbox]`).
 *
 * @example
 * ```ts
 * import { evalDeclaration } from "./declaration.ts";
 * // evalDeclaration(ws, ws.evals.get("app/review")!).eval
 * ```
 */
export function evalDeclaration(
  ws: Pick<Workspace, "extra">,
  ev: Pick<EvalDecl, "artifactId" | "name">,
): Declaration {
  const data = manifestData(ws);
  const own = table(data, "artifacts", ev.artifactId, "evals", ev.name);
  const workspace: Declaration = Object.create(null);
  for (const [k, v] of Object.entries(data)) {
    if (PER_ENTRY_TABLES.has(k) || k === "plugins" || k === "hooks") continue;
    const value = plain(v, HASHED_TABLES.has(k));
    if (value !== undefined) workspace[k] = value;
  }
  const plugins = pluginsOf(ws as Workspace);
  return {
    eval: canonicalDeclaration(own, ["extensions"]),
    plugins: plain({ enable: plugins.enable, configs: plugins.configs }, false),
    hooks: plugins.hooks.map((h) => canonicalDeclaration(h)),
    workspace,
  };
}
