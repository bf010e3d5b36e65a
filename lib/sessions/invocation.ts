/**
 * Preparing a session's start or stop invocation: the usual executable lookup, scoped
 * argv, the json envelope with `args: {}` and private output/tmp directories, and the
 * author's environment plus the session directory variables.
 *
 * @module
 */

import { executionPathMap } from "../runtime/command_tool.ts";
import { toolEnvironment } from "../process/env.ts";
import { buildJsonRequest } from "../protocols/json_request.ts";
import { expandArtifactOperands, scopeEntries } from "../runtime/scope_context.ts";
import { resolveProgram } from "../workspace/program_path.ts";
import type { Artifact, SessionCommand, Workspace } from "../workspace/types.ts";
import { sessionEnv } from "./options.ts";

/** The registry-wide facts a session needs (taken from the call that starts it). */
export interface SessionScope {
  /** The workspace. */
  ws: Workspace;
  /** The Artifact declaring the session (its cwd is the process cwd). */
  artifact: Artifact;
  /** The eval scope (json context and operands). */
  scope: readonly string[];
  /** The author's environment. */
  env: Record<string, string>;
}

/** A ready-to-spawn invocation. */
export interface Invocation {
  /** Absolute executable path. */
  command: string;
  /** argv[1..]. */
  args: string[];
  /** Working directory. */
  cwd: string;
  /** Complete environment. */
  env: Record<string, string>;
  /** The json envelope. */
  stdin: string;
}

/**
 * Prepare a start or stop invocation, or say (value-free) why it cannot run.
 *
 * @example
 * ```ts
 * import { prepareInvocation } from "./invocation.ts";
 * // prepareInvocation(scope, decl.start, { outputDir, tmpDir }, sessionDir)
 * ```
 */
export function prepareInvocation(
  s: SessionScope,
  cmd: SessionCommand,
  dirs: { outputDir: string; tmpDir: string },
  sessionDir: string,
): { ok: true; invocation: Invocation } | { ok: false; reason: string } {
  const program = resolveProgram(cmd.command, s.artifact.cwd, s.ws.root, s.env);
  if (!program.ok) return { ok: false, reason: program.reason };
  const stdin = buildJsonRequest({
    artifactId: s.artifact.id,
    artifactPath: s.artifact.physicalPath,
    outputDir: dirs.outputDir,
    tmpDir: dirs.tmpDir,
    scope: scopeEntries(s.ws, s.scope),
    executionPaths: executionPathMap(s.ws.root, cmd.executionPaths),
  }, {});
  return {
    ok: true,
    invocation: {
      command: program.path,
      args: expandArtifactOperands(s.ws, cmd.args),
      cwd: s.artifact.cwd,
      env: toolEnvironment(s.env, sessionEnv(sessionDir), { tmpDir: dirs.tmpDir }),
      stdin,
    },
  };
}
