/**
 * Running one bound tool call (json or plain) like `runCommand` in lib/runtime, plus the
 * two hooks a session needs: the group is journaled before it is admitted (`onSpawn`,
 * awaited before stdin is written) and retired once its termination is confirmed.
 *
 * NOTE for the lead: this mirrors `runCommand` (lib/runtime/command_tool.ts) because
 * `CommandSpec` has no `onSpawn`. If `runCommand` gains `onSpawn` (passed to
 * `runBounded`) and returns the run's record, this file can shrink to a call to it.
 *
 * @module
 */

import { createCallDirs } from "../process/call_dirs.ts";
import { toolEnvironment } from "../process/env.ts";
import type { ProcessRecord } from "../process/proc_identity.ts";
import { runBounded } from "../process/run.ts";
import { buildJsonRequest } from "../protocols/json_request.ts";
import { normalizeJsonOutput } from "../protocols/json_output.ts";
import { normalizePlainOutput, PLAIN_RETAIN_BYTES } from "../protocols/plain_output.ts";
import { substitutePlainArgv } from "../protocols/plain_argv.ts";
import { errorResult, type ToolResult } from "../results/types.ts";
import type { CommandSpec } from "../runtime/command_tool.ts";
import { expandArtifactOperands, scopeEntries } from "../runtime/scope_context.ts";
import { resolveProgram } from "../workspace/program_path.ts";
import { executionPathMap } from "./invocation.ts";

/** Journal hooks of a bound call. */
export interface BoundHooks {
  /**
   * Record the group before it is admitted; throwing refuses the call. Synchronous on
   * purpose: see `Journal` (an awaiting `onSpawn` can lose a fast child's output).
   */
  onSpawn: (record: ProcessRecord) => void;
  /** The group's termination was confirmed. */
  onSettled: (record: ProcessRecord) => void;
}

function buildArgv(spec: CommandSpec): string[] | ToolResult {
  try {
    return spec.protocol === "plain"
      ? substitutePlainArgv(
        spec.args.filter((a): a is string => typeof a === "string"),
        [...spec.properties],
        spec.callArgs,
      )
      : expandArtifactOperands(spec.ws, spec.args);
  } catch (e) {
    return errorResult(e instanceof Error ? e.message : "The arguments could not be substituted.");
  }
}

/**
 * Run a bound call to a normalized result. `spec.stateDir` is where the call's private
 * directories go (the session root, so a sweep removes them after a crash). Never throws
 * for tool misbehaviour.
 *
 * @example
 * ```ts
 * import { runBoundCommand } from "./session_command.ts";
 * // await runBoundCommand(spec, { onSpawn: (r) => journal.admit("call", r), onSettled: (r) => journal.retire(r) });
 * ```
 */
export async function runBoundCommand(spec: CommandSpec, hooks: BoundHooks): Promise<ToolResult> {
  const program = resolveProgram(spec.command, spec.artifact.cwd, spec.ws.root, spec.env);
  if (!program.ok) return errorResult(`The tool cannot run: ${program.reason}.`);
  const argv = buildArgv(spec);
  if (!Array.isArray(argv)) return argv;
  const dirs = await createCallDirs(spec.stateDir);
  try {
    const stdin = spec.protocol === "json"
      ? buildJsonRequest({
        artifactId: spec.artifact.id,
        artifactPath: spec.artifact.physicalPath,
        outputDir: dirs.outputDir,
        tmpDir: dirs.tmpDir,
        scope: scopeEntries(spec.ws, spec.scope),
        executionPaths: executionPathMap(spec.ws.root, spec.executionPaths),
      }, spec.callArgs)
      : undefined;
    let run;
    try {
      run = await runBounded({
        command: program.path,
        args: argv,
        cwd: spec.artifact.cwd,
        env: toolEnvironment(spec.env, spec.extraEnv ?? {}, { tmpDir: dirs.tmpDir }),
        stdin,
        timeoutMs: spec.timeoutMs,
        signal: spec.signal,
        retainStdoutBytes: spec.protocol === "plain" ? PLAIN_RETAIN_BYTES : undefined,
        onSpawn: hooks.onSpawn,
      });
    } catch {
      return errorResult(
        "The tool call could not be recorded in its session's journal; it was not run.",
      );
    }
    if (run.record !== undefined && run.cleanupConfirmed) {
      hooks.onSettled(run.record);
    }
    return spec.protocol === "json"
      ? await normalizeJsonOutput(run, dirs.outputDir)
      : normalizePlainOutput(run);
  } finally {
    await dirs.remove();
  }
}
