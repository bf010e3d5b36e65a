/**
 * What an open registry is, in `toolhost.lock` form: per listed tool its hashes, whole
 * canonical declaration, execution-path pins and programs; per bound session the same;
 * the eval's own declaration and the programs its hook commands run. The registry
 * computes this (when a lock applies) and `lib/lock` compares it, so the registry
 * depends on the lock and not the other way round.
 *
 * @module
 */

import { toolHashes } from "../lock/canonical.ts";
import type { RegistryPart } from "../lock/compare.ts";
import { evalDeclaration, sessionDeclaration, toolDeclaration } from "../lock/declaration.ts";
import type { EvalLock, SessionLock, ToolLock } from "../lock/lock_file.ts";
import type { PinGuard } from "./pin_guard.ts";
import { emptyRecord, own } from "../lock/own.ts";
import type { LockInputs } from "../lock/registry_lock.ts";
import { pinProgram, type ProgramContext, type ProgramPins } from "../pins/program_pin.ts";
import type { ToolListing } from "../results/tool_listing.ts";
import { pluginsOf } from "../workspace/parse_plugins.ts";
import { sessionPinKey } from "../workspace/names.ts";
import type { Artifact, ToolDecl, Workspace } from "../workspace/types.ts";
import type { Selection } from "./selection.ts";

/** What {@link lockInputs} reads from an open registry. */
export interface LockStateSource {
  /** The workspace. */
  workspace: Workspace;
  /** The selection. */
  selection: Selection;
  /** The raw listing (not neutralized). */
  listing: readonly ToolListing[];
  /** Execution-path pins by tool or session pin key. */
  pins: Record<string, Record<string, string>>;
  /** The author's environment (its PATH finds programs). */
  env: Record<string, string>;
}

/** `pins` with every role prefixed: `start`, `start interpreter`, … */
function prefixed(prefix: string, pins: ProgramPins): ProgramPins {
  const out: ProgramPins = emptyRecord();
  for (const [role, pin] of Object.entries(pins)) {
    out[role === "command" ? prefix : `${prefix} ${role}`] = pin;
  }
  return out;
}

/**
 * The command a tool runs (a command tool's, `help`'s target, `git` for the native
 * `git_*` tools, which find it on PATH: lib/native/git.ts), if any.
 */
function commandOf(decl: ToolDecl): string | undefined {
  if (decl.type === "command") return decl.command;
  if (decl.builtin === "help") return decl.args?.[0];
  if (decl.plugin === undefined && decl.builtin.startsWith("git_")) return "git";
  return undefined;
}

/**
 * `ctx` with the arguments whose workspace files are pinned too (operand_pin.ts). An
 * `{artifact = ID}` element is its Artifact's physical path: `sh` given a file Artifact
 * runs that file.
 */
function withArgs(ws: Workspace, ctx: ProgramContext, args: readonly unknown[]): ProgramContext {
  const operands = args.map((a) => {
    if (typeof a !== "object" || a === null || !("artifact" in a)) return a;
    return ws.artifacts.get(String(a.artifact))?.physicalPath ?? a;
  });
  return { ...ctx, operands };
}

/**
 * A plain argument as the program gets it: `{{`/`}}` are literal braces; one holding a
 * placeholder is the caller's value (null: not a workspace file of the declaration). Other
 * argv (json tools, sessions, hooks, extensions) is never interpolated: braces are literal.
 */
function plainLiteral(arg: unknown): unknown {
  if (typeof arg !== "string") return arg;
  if (/[{}]/.test(arg.replace(/\{\{|\}\}/g, ""))) return null;
  return arg.replace(/\{\{|\}\}/g, (m) => m[0]);
}

/** A tool's program context: a command's arguments (a `help` built-in's are its program). */
function toolCtx(ws: Workspace, ctx: ProgramContext, decl: ToolDecl): ProgramContext {
  if (decl.type !== "command") return ctx;
  return withArgs(ws, ctx, decl.protocol === "plain" ? decl.args.map(plainLiteral) : decl.args);
}

function copyPins(pins: Record<string, string> | undefined): Record<string, string> {
  return Object.assign(emptyRecord<string>(), pins);
}

async function sessionLock(
  src: LockStateSource,
  artifact: Artifact,
  name: string,
  ctx: ProgramContext,
): Promise<SessionLock> {
  const ws = src.workspace;
  const decl = artifact.sessions[name];
  const key = `${name}_${artifact.id}`;
  return {
    declaration: sessionDeclaration(decl),
    executionPaths: {
      start: copyPins(own(src.pins, `${key}.start`)),
      stop: copyPins(own(src.pins, `${key}.stop`)),
    },
    programs: {
      ...prefixed(
        "start",
        await pinProgram(decl.start.command, withArgs(ws, ctx, decl.start.args)),
      ),
      ...prefixed("stop", await pinProgram(decl.stop.command, withArgs(ws, ctx, decl.stop.args))),
    },
  };
}

/**
 * The registry's part of an eval's lock, and which tools each session binds.
 *
 * @example
 * ```ts
 * import { lockInputs } from "./lock_state.ts";
 * // const inputs = await lockInputs({ workspace, selection, listing, pins, env });
 * ```
 */
export async function lockInputs(src: LockStateSource): Promise<LockInputs> {
  const ws = src.workspace;
  const byName = new Map(src.selection.tools.map((t) => [t.name, t]));
  const tools: RegistryPart["tools"] = emptyRecord();
  const sessions: RegistryPart["sessions"] = emptyRecord();
  const bindings = new Map<string, string[]>();
  for (const t of src.listing) {
    const reg = byName.get(t.name);
    const entry: ToolLock = {
      ...toolHashes(t.description, t.inputSchema),
      declaration: {},
      executionPaths: copyPins(own(src.pins, t.name)),
      programs: emptyRecord(),
    };
    tools[t.name] = entry;
    if (reg === undefined) continue; // toolhost's own artifact tools, plugin tools
    const artifact = ws.artifacts.get(reg.artifactId)!;
    const ctx = { root: ws.root, cwd: artifact.cwd, env: src.env };
    entry.declaration = toolDeclaration(ws, reg.artifactId, reg.decl);
    const command = commandOf(reg.decl);
    if (command !== undefined) {
      entry.programs = await pinProgram(command, toolCtx(ws, ctx, reg.decl));
    }
    if (reg.decl.type !== "command" || reg.decl.session === undefined) continue;
    const key = `${reg.decl.session}_${artifact.id}`;
    bindings.set(key, [...(bindings.get(key) ?? []), t.name]);
    if (!Object.hasOwn(sessions, key)) {
      sessions[key] = await sessionLock(src, artifact, reg.decl.session, ctx);
    }
  }
  const evalDecl = src.selection.evalId === undefined
    ? undefined
    : ws.evals.get(src.selection.evalId);
  const programs: ProgramPins = emptyRecord();
  for (const h of pluginsOf(ws).hooks) {
    Object.assign(
      programs,
      prefixed(
        h.keyPath,
        await pinProgram(h.command, {
          root: ws.root,
          cwd: ws.root,
          env: src.env,
          operands: h.args,
        }),
      ),
    );
  }
  const part: RegistryPart = {
    declaration: evalDecl ? evalDeclaration(ws, evalDecl) : {},
    programs,
    tools,
    sessions,
  };
  return { evalId: src.selection.evalId, listing: src.listing, part, bindings };
}

/** The locked programs whose roles start with `prefix` (`start`, `start interpreter`, …), unprefixed. */
function unprefixed(prefix: string, pins: ProgramPins): ProgramPins {
  const out: ProgramPins = emptyRecord();
  for (const [role, pin] of Object.entries(pins)) {
    if (role === prefix) out.command = pin;
    else if (role.startsWith(`${prefix} `)) out[role.slice(prefix.length + 1)] = pin;
  }
  return out;
}

/**
 * With a verified lock: have `guard` check, before every run, that each tool's programs
 * (and its session's start command's) are still the locked ones, and before every call
 * that the hook commands' programs are.
 *
 * @example
 * ```ts
 * import { watchLockedPrograms } from "./lock_state.ts";
 * // watchLockedPrograms(guard, { workspace, selection, env, locked });
 * ```
 */
export function watchLockedPrograms(
  guard: PinGuard,
  src: Pick<LockStateSource, "workspace" | "selection" | "env"> & { locked: EvalLock },
): void {
  const ws = src.workspace;
  for (const t of src.selection.tools) {
    const entry = own(src.locked.tools, t.name);
    const command = commandOf(t.decl);
    if (entry === undefined || command === undefined) continue;
    const artifact = ws.artifacts.get(t.artifactId)!;
    const ctx = { root: ws.root, cwd: artifact.cwd, env: src.env };
    guard.watchProgram(t.name, command, toolCtx(ws, ctx, t.decl), entry.programs);
    if (t.decl.type !== "command" || t.decl.session === undefined) continue;
    const session = own(src.locked.sessions, `${t.decl.session}_${artifact.id}`);
    if (session === undefined) continue;
    const decl = artifact.sessions[t.decl.session];
    const start = withArgs(ws, ctx, decl.start.args);
    guard.watchProgram(t.name, decl.start.command, start, unprefixed("start", session.programs));
    // Stop runs later, at the session's end: checked then (PinGuard.keyUnchanged).
    const stopKey = sessionPinKey(t.decl.session, artifact.id, "stop");
    const stop = withArgs(ws, ctx, decl.stop.args);
    guard.watchProgram(stopKey, decl.stop.command, stop, unprefixed("stop", session.programs));
  }
  const hookCtx = { root: ws.root, cwd: ws.root, env: src.env };
  for (const h of pluginsOf(ws).hooks) {
    const ctx = { ...hookCtx, operands: h.args };
    guard.watchProgram("", h.command, ctx, unprefixed(h.keyPath, src.locked.programs));
  }
}
