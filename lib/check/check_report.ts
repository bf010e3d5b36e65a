/**
 * The `tools check` report: scopes, schemas and per-tool readiness, built statically.
 *
 * @module
 */

import { BUILTIN_SPECS } from "../builtins/specs.ts";
import { publishedName } from "../workspace/names.ts";
import type { Selection } from "../registry/selection.ts";
import type { Artifact, CommandToolDecl, SessionCommand, Workspace } from "../workspace/types.ts";
import {
  checkExecutable,
  checkExecutionPath,
  checkOperands,
  checkTarget,
  type ReadinessCheck,
} from "./static_checks.ts";
import { limitsCheck, type LimitsInfo, limitsInfo } from "../limits/report.ts";
import type { LockSection } from "../lock/lock_section.ts";
import { confinementCheck, type ConfinementInfo, confinementInfo } from "../sandbox/report.ts";
import { evalExtensions, type ExtensionDecl } from "../workspace/parse_extensions.ts";
import { resolveProgram } from "../workspace/program_path.ts";
import { interpreterProblem } from "./interpreter.ts";
import { pluginsOf } from "../workspace/parse_plugins.ts";

/** Readiness of one tool. */
export interface ToolReport {
  /** Published name. */
  name: string;
  /** Declaring Artifact. */
  artifactId: string;
  /** `builtin` or `command`. */
  kind: "builtin" | "command";
  /** Built-in name or protocol. */
  protocol: string;
  /** Rendered description. */
  description: string;
  /** Input schema. */
  inputSchema: Record<string, unknown>;
  /** Session binding, if any. */
  session?: string;
  /** Declared resource limits and the enforcement in effect, if any. */
  limits?: LimitsInfo;
  /** Confinement in effect (command tools; built-ins run inside toolhost). */
  confinement?: ConfinementInfo;
  /** Checks run. */
  checks: ReadinessCheck[];
  /** All checks passed. */
  ready: boolean;
}

/** The report for one selection. */
export interface SelectionReport {
  /** Eval id, or undefined for an Artifact selection. */
  eval?: string;
  /** Artifact id for an Artifact selection. */
  artifact?: string;
  /** Audience. */
  audience: "agent" | "human";
  /** Scope entries by Artifact id (workspace-relative paths). */
  scope: Record<string, { path: string; kind: string; children: Record<string, string> }>;
  /** Tools. */
  tools: ToolReport[];
  /** Sessions used by the listed tools. */
  sessions: {
    name: string;
    artifactId: string;
    limits?: LimitsInfo;
    confinement: ConfinementInfo;
    checks: ReadinessCheck[];
    ready: boolean;
  }[];
  /**
   * Extensions the selection admits, with their confinement; `problem` when a command
   * extension's program (or its `#!` interpreter) is not found, which starts nothing.
   */
  extensions?: { name: string; confinement: ConfinementInfo; problem?: string; ready: boolean }[];
  /** Hook commands, with their confinement. */
  hooks?: { keyPath: string; confinement: ConfinementInfo; ready: boolean }[];
  /** `toolhost.lock` verification, when the workspace has a lock file. */
  lock?: LockSection;
  /** Everything ready. */
  ready: boolean;
}

/**
 * Build the static report for a selection.
 *
 * @example
 * ```ts
 * import { buildSelectionReport } from "./check_report.ts";
 * // const report = buildSelectionReport(ws, selectTools(ws, { eval: "app/review" }), process.env);
 * ```
 */
export function buildSelectionReport(
  ws: Workspace,
  sel: Selection,
  env: Record<string, string | undefined>,
  artifact?: string,
): SelectionReport {
  const scopeSet = new Set(sel.scope);
  const scope: SelectionReport["scope"] = {};
  for (const id of sel.scope) {
    const a = ws.artifacts.get(id)!;
    scope[id] = { path: a.relPath, kind: a.kind, children: { ...a.children } };
  }
  const tools: ToolReport[] = sel.tools.map((t) => {
    const a = ws.artifacts.get(t.artifactId)!;
    const checks = t.decl.type === "builtin"
      ? builtinChecks(ws, a, t.decl.builtin, t.decl.args, env)
      : commandChecks(ws, a, t.decl, scopeSet, env);
    const limits = t.decl.type === "command" ? t.decl.limits : undefined;
    if (limits) checks.push(limitsCheck());
    const policy = t.decl.type === "command" ? toolPolicy(a, t.decl) : undefined;
    const confined = confinementCheck(policy);
    if (confined) checks.push(confined);
    return {
      name: t.name,
      artifactId: t.artifactId,
      kind: t.decl.type,
      protocol: t.decl.type === "builtin" ? `builtin:${t.decl.builtin}` : t.decl.protocol,
      description: t.description,
      inputSchema: t.inputSchema,
      ...(t.decl.type === "command" && t.decl.session ? { session: t.decl.session } : {}),
      ...(limits ? { limits: limitsInfo(limits) } : {}),
      ...(t.decl.type === "command" ? { confinement: confinementInfo(policy, sel.audience) } : {}),
      checks,
      ready: checks.every((c) => c.ok),
    };
  });
  const sessions = sessionReports(ws, sel, scopeSet, env);
  const others = processReports(ws, sel, env);
  const ready = tools.every((t) => t.ready) && sessions.every((s) => s.ready) &&
    others.extensions.every((e) => e.ready) && others.hooks.every((h) => h.ready);
  return {
    ...(sel.evalId ? { eval: sel.evalId } : { artifact }),
    audience: sel.audience,
    scope,
    tools,
    sessions,
    ...(others.extensions.length > 0 ? { extensions: others.extensions } : {}),
    ...(others.hooks.length > 0 ? { hooks: others.hooks } : {}),
    ready,
  };
}

function builtinChecks(
  ws: Workspace,
  a: Artifact,
  builtin: string,
  args: string[] | undefined,
  env: Record<string, string | undefined>,
): ReadinessCheck[] {
  if (args === undefined || args.length === 0) {
    return [{ check: "builtin", ok: true, detail: `${builtin} takes the model's input` }];
  }
  if (builtin === "help") return [checkExecutable(ws, a, args[0], env)];
  const want = builtin === "list" ? "folder" : "file";
  const checks = [checkTarget(a, args[0], want)];
  if (!Object.hasOwn(BUILTIN_SPECS, builtin)) {
    checks.push({ check: "builtin", ok: false, detail: "unknown" });
  }
  return checks;
}

function commandChecks(
  ws: Workspace,
  a: Artifact,
  decl: CommandToolDecl,
  scope: Set<string>,
  env: Record<string, string | undefined>,
): ReadinessCheck[] {
  return commandLikeChecks(ws, a, decl, scope, env);
}

function commandLikeChecks(
  ws: Workspace,
  a: Artifact,
  c: CommandToolDecl | SessionCommand,
  scope: Set<string>,
  env: Record<string, string | undefined>,
): ReadinessCheck[] {
  return [
    checkExecutable(ws, a, c.command, env),
    checkOperands(ws, c.args, scope),
    ...c.executionPaths.map((p) =>
      checkExecutionPath(ws.root, p, a.kind === "folder" ? a.relPath : undefined)
    ),
  ];
}

function sessionReports(
  ws: Workspace,
  sel: Selection,
  scope: Set<string>,
  env: Record<string, string | undefined>,
): SelectionReport["sessions"] {
  const seen = new Set<string>();
  const out: SelectionReport["sessions"] = [];
  for (const t of sel.tools) {
    if (t.decl.type !== "command" || !t.decl.session) continue;
    const key = publishedName(t.decl.session, t.artifactId);
    if (seen.has(key)) continue;
    seen.add(key);
    const a = ws.artifacts.get(t.artifactId)!;
    const s = a.sessions[t.decl.session];
    const checks = [
      ...commandLikeChecks(ws, a, s.start, scope, env).map((c) => ({
        ...c,
        check: `start.${c.check}`,
      })),
      ...commandLikeChecks(ws, a, s.stop, scope, env).map((c) => ({
        ...c,
        check: `stop.${c.check}`,
      })),
      ...(s.limits ? [limitsCheck()] : []),
      ...(s.sandbox && confinementCheck(s.sandbox) ? [confinementCheck(s.sandbox)!] : []),
    ];
    const limits = s.limits ? { limits: limitsInfo(s.limits) } : {};
    out.push({
      name: s.name,
      artifactId: a.id,
      ...limits,
      confinement: confinementInfo(s.sandbox, sel.audience),
      checks,
      ready: checks.every((c) => c.ok),
    });
  }
  return out;
}

function processReports(ws: Workspace, sel: Selection, env: Record<string, string | undefined>): {
  extensions: NonNullable<SelectionReport["extensions"]>;
  hooks: NonNullable<SelectionReport["hooks"]>;
} {
  const entry = (policy: Parameters<typeof confinementInfo>[0]) => ({
    confinement: confinementInfo(policy, sel.audience),
    ready: confinementCheck(policy)?.ok ?? true,
  });
  const extensions = sel.evalId === undefined ? [] : evalExtensions(ws, sel.evalId).map((d) => {
    const e = entry(d.sandbox);
    // A remote extension is checked when it connects; a command one by its program here.
    const problem = d.remote !== undefined ? undefined : extensionProgramProblem(ws, d, env);
    return problem === undefined
      ? { name: d.name, ...e }
      : { name: d.name, confinement: e.confinement, problem, ready: false };
  });
  const hooks = pluginsOf(ws).hooks.map((h) => ({ keyPath: h.keyPath, ...entry(h.sandbox) }));
  return { extensions, hooks };
}

/** Why a command extension's program cannot start (not found, no `#!` interpreter). */
function extensionProgramProblem(
  ws: Workspace,
  d: ExtensionDecl,
  env: Record<string, string | undefined>,
): string | undefined {
  const r = resolveProgram(d.command, ws.root, ws.root, env);
  return r.ok ? interpreterProblem(r.path, env) : r.reason;
}

/** A tool's policy in effect: a bound tool runs under its session's when that is confined. */
function toolPolicy(a: Artifact, decl: CommandToolDecl): CommandToolDecl["sandbox"] {
  const session = decl.session === undefined ? undefined : a.sessions[decl.session]?.sandbox;
  return session !== undefined && session.mode !== "host" ? session : decl.sandbox;
}
