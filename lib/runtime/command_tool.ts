/**
 * Run a command tool (json or plain protocol): resolve the program, create private
 * per-call output/tmp directories, build argv, env and stdin, run it bounded in its own
 * process group, normalize its output, and remove the call's directories on every path.
 *
 * @module
 */

import { join } from "node:path";
import { ToolhostError } from "../errors/errors.ts";
import type { ProcessRecord } from "../process/proc_identity.ts";
import type { RunOutcome } from "../process/run.ts";
import type { RunGuard } from "../process/run_guard.ts";
import { invokeJsonCommand, invokePlainCommand } from "../protocols/invoke.ts";
import { substitutePlainArgv } from "../protocols/plain_argv.ts";
import { errorResult, type ToolResult } from "../results/types.ts";
import { resolveProgram } from "../workspace/program_path.ts";
import type { ArgvElement, Artifact, Workspace } from "../workspace/types.ts";
import { expandArtifactOperands, scopeEntries } from "./scope_context.ts";
import { openGuard, unenforceableMessage } from "../limits/guard.ts";
import { hasLimits, type ResourceLimits } from "../limits/types.ts";
import { plainSpill } from "../spill/plain_spill.ts";
import type { SpillTarget } from "../spill/spill_result.ts";
import type { Protector } from "../redact/types.ts";
import type { Confine } from "../process/sandbox_init.ts";
import type { WarmPool } from "../sandbox/warm_pool.ts";
import { type Confinement, openConfine, unconfinableMessage } from "../sandbox/confine.ts";

/** What a command invocation needs (tools, help and session commands share it). */
export interface CommandSpec {
  /** The workspace. */
  ws: Workspace;
  /** The owning Artifact (its cwd is the process cwd). */
  artifact: Artifact;
  /** The eval scope (for the json context and operands). */
  scope: readonly string[];
  /** Command as declared. */
  command: string;
  /** argv template. */
  args: readonly ArgvElement[];
  /** Protocol. */
  protocol: "json" | "plain";
  /** Top-level schema property names (plain placeholders). */
  properties: readonly string[];
  /** Admitted arguments. */
  callArgs: Record<string, unknown>;
  /** Deadline. */
  timeoutMs: number;
  /** Declared execution paths (json context). */
  executionPaths: readonly string[];
  /** State directory for per-call dirs. */
  stateDir: string;
  /** The author's environment. */
  env: Record<string, string>;
  /** Extra environment (session dir, artifact dir). */
  extraEnv?: Record<string, string>;
  /** Variables granted to this call alone (protected values), under `extraEnv`. */
  grantedEnv?: Record<string, string>;
  /** Cancellation. */
  signal?: AbortSignal;
  /** Called with the process group's identity before it is admitted (session journals). */
  onSpawn?: (record: ProcessRecord) => void | Promise<void>;
  /** Called with the finished run (sessions retire journaled groups). */
  onSettled?: (run: RunOutcome) => void;
  /** Declared resource limits. Default none. */
  limits?: ResourceLimits;
  /** Plain tools with `overflow = "artifact"`: where oversized stdout goes. Default none. */
  spill?: SpillTarget;
  /**
   * Protected values: plain output is redacted before it is cut, and a spill file as it is
   * written. Default none.
   */
  protect?: Protector;
  /** Plain tools: exit statuses that mean success. Default `[0]`. */
  successExitCodes?: readonly number[];
  /** Confinement (lib/sandbox), when the declaration's policy is not `host`. Default none. */
  confinement?: Confinement;
  /** Receives copies of the tool's stderr (`--stderr`; never a result). Default none. */
  onStderr?: (chunk: Uint8Array) => void;
  /**
   * Warm spares (lib/sandbox/warm_pool.ts) for a call without resource limits that joins
   * no session's network, confined or not; other calls are only counted by the pool (no
   * spare's spawn begins while one starts). Default none.
   */
  warm?: WarmPool;
}

/**
 * Run one command tool call to a normalized result. Never throws for tool misbehaviour.
 *
 * @example
 * ```ts
 * import { runCommand } from "./command_tool.ts";
 * // const result = await runCommand({ ws, artifact, scope, command: "tools/x", ... });
 * ```
 */
export async function runCommand(spec: CommandSpec): Promise<ToolResult> {
  const program = resolveProgram(spec.command, spec.artifact.cwd, spec.ws.root, spec.env);
  if (!program.ok) return errorResult(`The tool cannot run: ${program.reason}.`);
  let confine: Confine | undefined;
  if (spec.confinement !== undefined) {
    const c = openConfine(spec.confinement, {
      ws: spec.ws,
      scope: spec.scope,
      owner: spec.artifact.id,
      executionPaths: spec.executionPaths,
      program: program.path,
      path: spec.env.PATH,
    });
    if (!c.ok) return errorResult(`The tool was refused. ${unconfinableMessage(c.reason)}`);
    confine = c.confine;
  }
  let result: ToolResult;
  let created: string | undefined;
  try {
    result = await runLimited(spec, confine, program.path);
  } finally {
    // A missing trust anchor the run created is moved aside, also when it threw.
    created = confine?.settle?.();
  }
  return created === undefined ? result : errorResult(created);
}

/** Run under the declared resource limits, if any. */
async function runLimited(
  spec: CommandSpec,
  confine: Confine | undefined,
  program: string,
): Promise<ToolResult> {
  if (!hasLimits(spec.limits)) return await runResolved({ ...spec, confine }, program);
  const opened = await openGuard(spec.limits);
  if (!opened.ok) return errorResult(unenforceableMessage(opened.reason));
  try {
    return await runResolved({ ...spec, guard: opened.guard, confine }, program);
  } finally {
    await opened.guard.settle({ exitCode: null, signal: null });
  }
}

/**
 * Check what can fail about a call before anything is created or started: the program
 * lookup and the plain argv substitution (a missing placeholder value, a NUL byte). Returns the call's
 * error result, or undefined when it may run. A bound call runs this before its session
 * is started, so a call that cannot run never starts a harness.
 *
 * @example
 * ```ts
 * import { preflightCommand } from "./command_tool.ts";
 * // const refused = preflightCommand(spec);
 * // if (refused) return refused;
 * ```
 */
export function preflightCommand(spec: CommandSpec): ToolResult | undefined {
  const program = resolveProgram(spec.command, spec.artifact.cwd, spec.ws.root, spec.env);
  if (!program.ok) return errorResult(`The tool cannot run: ${program.reason}.`);
  if (spec.protocol !== "plain") return undefined;
  try {
    substitutePlainArgv(plainTemplate(spec.args), [...spec.properties], spec.callArgs);
    return undefined;
  } catch (e) {
    if (e instanceof ToolhostError) return errorResult(e.message);
    throw e;
  }
}

/** A plain tool's argv template (plain argv holds no Artifact operands). */
function plainTemplate(args: readonly ArgvElement[]): string[] {
  return args.filter((a): a is string => typeof a === "string");
}

async function runResolved(
  spec: CommandSpec & { guard?: RunGuard; confine?: Confine },
  program: string,
): Promise<ToolResult> {
  const base = {
    command: program,
    cwd: spec.artifact.cwd,
    stateDir: spec.stateDir,
    baseEnv: spec.env,
    extraEnv: spec.extraEnv,
    grantedEnv: spec.grantedEnv,
    timeoutMs: spec.timeoutMs,
    signal: spec.signal,
    onSpawn: spec.onSpawn,
    onSettled: spec.onSettled,
    guard: spec.guard,
    confine: spec.confine,
    onStderr: spec.onStderr,
    // Limits (their guard wraps bwrap) and a joined network keep the cold path; the pool
    // still counts such a call, so that no spare's spawn contends with its start.
    warm: spec.warm,
    coldOnly: spec.confinement?.joinNetOf !== undefined,
  };
  if (spec.protocol === "json") {
    return await invokeJsonCommand({
      ...base,
      argv: expandArtifactOperands(spec.ws, spec.args),
      context: {
        artifactId: spec.artifact.id,
        artifactPath: spec.artifact.physicalPath,
        scope: scopeEntries(spec.ws, spec.scope),
        executionPaths: executionPathMap(spec.ws.root, spec.executionPaths),
      },
      args: spec.callArgs,
      protect: spec.protect,
    });
  }
  try {
    return await invokePlainCommand({
      ...base,
      template: plainTemplate(spec.args),
      properties: [...spec.properties],
      args: spec.callArgs,
      stdoutSpill: spec.spill ? plainSpill(spec.spill, spec.protect) : undefined,
      protect: spec.protect,
      successExitCodes: spec.successExitCodes,
    });
  } catch (e) {
    if (e instanceof ToolhostError) return errorResult(e.message);
    throw e;
  }
}

/**
 * The json context's `executionPaths`: declared workspace-relative path → physical path.
 *
 * @example
 * ```ts
 * import { executionPathMap } from "./command_tool.ts";
 * executionPathMap("/ws", ["app/h"]); // { "app/h": "/ws/app/h" }
 * ```
 */
export function executionPathMap(root: string, paths: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const p of paths) out[p] = join(root, p);
  return out;
}
