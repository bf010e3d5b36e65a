/**
 * Manifest hook commands (`[[hooks.before_call]]`, `[[hooks.after_call]]`): one process
 * per matching call, in its own process group with a private TMPDIR, bounded like a
 * command tool (deadline, 16 MiB stream caps, TERM then KILL of the whole group). The
 * request is one JSON object on stdin; the response is one JSON object on stdout.
 *
 * Anything but a well-formed response from a zero exit — a nonzero exit, a signal, a
 * timeout, invalid JSON, an unknown decision — is a failure, which the host turns into a
 * denial (fail closed). Failure details go to the operator log, never to the model.
 *
 * @module
 */

import { createCallDirs } from "../process/call_dirs.ts";
import { toolEnvironment } from "../process/env.ts";
import { runBounded } from "../process/run.ts";
import { isPlainObject } from "../protocols/json_validate.ts";
import { errorResult, type ToolResult } from "../results/types.ts";
import type { HookCommandDecl } from "../workspace/parse_plugins.ts";
import { resolveProgram } from "../workspace/program_path.ts";
import type { Workspace } from "../workspace/types.ts";
import type { Confine } from "../process/sandbox_init.ts";
import { openConfine } from "../sandbox/confine.ts";
import { confinementOf } from "../sandbox/confinement_of.ts";
import type { AfterCallHook, BeforeCallDecision, BeforeCallHook, HookContext } from "./api.ts";
import { cleanReason } from "./reason.ts";
import { Redactor } from "./redact.ts";

/** Version of the hook request. */
export const HOOK_PROTOCOL_VERSION = 1;

/** What a hook command needs besides its declaration. */
export interface HookCommandEnv {
  /** Workspace root (the hook's cwd; relative commands resolve from here). */
  root: string;
  /** State directory (private call directories go below it). */
  stateDir: string;
  /** The author's environment (`TOOLHOST_*`/`ARTIFACTIZE_*` are stripped). */
  env: Record<string, string>;
  /** The registry's redactor: deny reasons are redacted before they are flattened. */
  redactor?: Redactor;
  /** The selection a confined hook may see (lib/sandbox). Default: no scope. */
  sandbox?: { ws: Workspace; scope: readonly string[]; owner?: string };
  /**
   * Checked right before every run of a hook command (the registry's lock check of the
   * hook programs): a sentence when what would run is not what was locked, and the hook
   * is then not run. An `after_call` hook runs after the tool, which may have changed it.
   */
  verify?: () => Promise<string | undefined>;
}

/** A hook command failed; `message` is for the operator log only. */
export class HookCommandFailure extends Error {}

/** The json request a hook command reads on stdin. */
export interface HookRequest {
  /** Protocol version (1). */
  version: number;
  /** `before_call` or `after_call`. */
  event: "before_call" | "after_call";
  /** Eval id (null when the registry was opened for an Artifact). */
  eval: string | null;
  /** Published tool name. */
  tool: string;
  /** The admitted arguments. */
  args: Readonly<Record<string, unknown>>;
  /** Call context. */
  context: {
    callId: string;
    artifactId: string | null;
    builtin: string | null;
    session: string | null;
  };
  /** after_call only: the normalized result. */
  result?: ToolResult;
}

/**
 * Build the request for a call.
 *
 * @example
 * ```ts
 * import { hookRequest } from "./hook_command.ts";
 * // hookRequest("before_call", ctx) → { version: 1, event: "before_call", eval, tool, args, context }
 * ```
 */
export function hookRequest(
  event: "before_call" | "after_call",
  call: HookContext,
  result?: ToolResult,
): HookRequest {
  return {
    version: HOOK_PROTOCOL_VERSION,
    event,
    eval: call.eval ?? null,
    tool: call.tool,
    args: call.args,
    context: {
      callId: call.callId,
      artifactId: call.artifactId ?? null,
      builtin: call.builtin ?? null,
      session: call.session ?? null,
    },
    ...(result ? { result } : {}),
  };
}

/** The hook's sandbox, undefined when unconfined; a refusal when it cannot be confined. */
function hookConfine(
  decl: HookCommandDecl,
  henv: HookCommandEnv,
  program: string,
): Confine | undefined {
  const { confinement } = confinementOf(decl, henv.stateDir);
  if (confinement === undefined) return undefined;
  const ctx = henv.sandbox;
  const c = openConfine(confinement, {
    ws: ctx?.ws ?? {
      root: henv.root,
      manifestPath: "",
      artifacts: new Map(),
      evals: new Map(),
      extra: {},
    },
    scope: ctx?.scope ?? [],
    owner: ctx?.owner,
    executionPaths: [],
    program,
  });
  if (!c.ok) throw new HookCommandFailure(`was refused: ${c.reason}; it was not run unconfined`);
  return c.confine;
}

async function runHook(
  decl: HookCommandDecl,
  henv: HookCommandEnv,
  request: HookRequest,
  signal: AbortSignal,
): Promise<Record<string, unknown>> {
  const changed = await henv.verify?.();
  if (changed !== undefined) throw new HookCommandFailure(`was refused: ${changed}`);
  const program = resolveProgram(decl.command, henv.root, henv.root, henv.env);
  if (!program.ok) throw new HookCommandFailure(`cannot run: ${program.reason}`);
  const confine = hookConfine(decl, henv, program.path);
  const dirs = await createCallDirs(henv.stateDir);
  try {
    const run = await runBounded({
      command: program.path,
      args: decl.args,
      cwd: henv.root,
      env: toolEnvironment(henv.env, {}, { tmpDir: dirs.tmpDir }),
      stdin: JSON.stringify(request),
      timeoutMs: decl.timeoutMs,
      signal,
      callDirs: dirs, // journaled like a command call, so a crash leaves nothing for long
      confine,
      sandboxWritable: [dirs.outputDir, dirs.tmpDir],
    });
    // A missing trust anchor the hook created is moved aside (lib/sandbox/anchor_watch.ts).
    const created = confine?.settle?.();
    if (created !== undefined) throw new HookCommandFailure(`was refused: ${created}`);
    if (run.spawnError) throw new HookCommandFailure("could not be started");
    if (run.timedOut) throw new HookCommandFailure(`timed out after ${decl.timeoutMs} ms`);
    if (run.cancelled) throw new HookCommandFailure("was cancelled");
    if (run.stdoutOverflow) throw new HookCommandFailure("printed more than the stream cap");
    if (run.signal) throw new HookCommandFailure(`was killed by ${run.signal}`);
    if (run.exitCode !== 0) throw new HookCommandFailure(`exited with status ${run.exitCode}`);
    let value: unknown;
    try {
      value = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(run.stdout));
    } catch {
      throw new HookCommandFailure("printed invalid JSON (one JSON object is expected)");
    }
    if (!isPlainObject(value)) throw new HookCommandFailure("printed JSON that is not an object");
    return value;
  } finally {
    await dirs.remove().catch(() => {});
  }
}

function onlyKeys(o: Record<string, unknown>, keys: readonly string[]): void {
  const extra = Object.keys(o).filter((k) => !keys.includes(k));
  if (extra.length > 0) throw new HookCommandFailure("response has keys outside the protocol");
}

function denyReason(o: Record<string, unknown>): string {
  if (typeof o.reason !== "string" || o.reason.trim() === "") {
    throw new HookCommandFailure("a deny response needs a nonempty `reason` string");
  }
  return o.reason;
}

/**
 * A `beforeCall` hook that runs a `[[hooks.before_call]]` command.
 *
 * @example
 * ```ts
 * import { beforeCallCommand } from "./hook_command.ts";
 * // host.addBefore(decl.keyPath, beforeCallCommand(decl, { root, stateDir, env }), decl);
 * ```
 */
export function beforeCallCommand(decl: HookCommandDecl, henv: HookCommandEnv): BeforeCallHook {
  return async (call): Promise<BeforeCallDecision> => {
    const o = await runHook(decl, henv, hookRequest("before_call", call), call.signal);
    onlyKeys(o, ["decision", "reason"]);
    if (o.decision === "allow") return { decision: "allow" };
    if (o.decision === "deny") return { decision: "deny", reason: denyReason(o) };
    throw new HookCommandFailure('`decision` must be "allow" or "deny"');
  };
}

/**
 * An `afterCall` hook that runs a `[[hooks.after_call]]` command. `{"decision":"allow"}`
 * keeps the result; `{"result": {...}}` (with or without `"decision":"allow"`) replaces
 * it; `{"decision":"deny","reason":"..."}` withholds it behind an error naming the reason.
 *
 * @example
 * ```ts
 * import { afterCallCommand } from "./hook_command.ts";
 * // host.addAfter(decl.keyPath, afterCallCommand(decl, { root, stateDir, env }), decl);
 * ```
 */
export function afterCallCommand(decl: HookCommandDecl, henv: HookCommandEnv): AfterCallHook {
  const redactor = henv.redactor ?? new Redactor();
  return async (result, call): Promise<ToolResult | void> => {
    const o = await runHook(decl, henv, hookRequest("after_call", call, result), call.signal);
    onlyKeys(o, ["decision", "reason", "result"]);
    if (o.decision === "deny") {
      // Cleaned like a before_call reason: redacted, one line, at most 1000 units.
      const reason = cleanReason(redactor, denyReason(o));
      return errorResult(`The call's result was withheld by \`${decl.keyPath}\`: ${reason}`);
    }
    if (o.decision !== undefined && o.decision !== "allow") {
      throw new HookCommandFailure('`decision` must be "allow" or "deny"');
    }
    if (o.result !== undefined) return o.result as ToolResult;
    if (o.decision === undefined) throw new HookCommandFailure("the response has no decision");
  };
}
