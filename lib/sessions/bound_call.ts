/**
 * A bound tool call: make sure its session is ready (starting it on first use, within
 * the call's deadline and cancellation), then run the command inside it with the session
 * directory in its environment and its group journaled.
 *
 * @module
 */

import { errorResult, type ToolResult } from "../results/types.ts";
import type { CommandSpec } from "../runtime/command_tool.ts";
import type { Confinement } from "../sandbox/confine.ts";
import type { Artifact } from "../workspace/types.ts";
import { sessionEndedMessage } from "./options.ts";
import { runBoundCommand } from "./session_command.ts";
import type { SessionSupervisor } from "./supervisor.ts";

/** One bound call. */
export interface BoundCallRequest {
  /** The Artifact declaring both the tool and the session. */
  artifact: Artifact;
  /** The session name the tool is bound to. */
  session: string;
  /** The call as it would run without a session (deadline, signal, args, env, ...). */
  spec: CommandSpec;
}

/**
 * Run a bound call. Startup counts against `spec.timeoutMs` and `spec.signal`; a startup
 * error is this call's (and every later call's) tool error; after the start process
 * exits every call returns ``The tool session `NAME` ended.``.
 *
 * @example
 * ```ts
 * import { callBoundTool } from "./bound_call.ts";
 * // const result = await callBoundTool(reg.sessions, { artifact, session: "app", spec });
 * ```
 */
export async function callBoundTool(
  sup: SessionSupervisor,
  req: BoundCallRequest,
): Promise<ToolResult> {
  const decl = req.artifact.sessions[req.session];
  if (decl === undefined) {
    return errorResult(`The tool session \`${req.session}\` is not declared.`);
  }
  if (sup.closed) return errorResult(sessionEndedMessage(req.session));
  const { spec } = req;
  const session = sup.session(req.artifact.id, decl, spec.stateDir);
  const began = Date.now();
  const scope = { ws: spec.ws, artifact: req.artifact, scope: spec.scope, env: spec.env };
  const gate = await session.ready(scope, spec.signal, began + spec.timeoutMs, spec.timeoutMs);
  if (!gate.ok) return gate.result;
  const left = spec.timeoutMs - (Date.now() - began);
  if (left < 1) return errorResult(session.deadlineMessage(spec.timeoutMs));
  return await session.run(
    (b) =>
      runBoundCommand({
        ...spec,
        stateDir: b.callsDir,
        extraEnv: { ...spec.extraEnv, ...b.env },
        // A confined session's policy covers its bound calls.
        ...(b.confinement ? { confinement: boundConfinement(b.confinement, spec) } : {}),
        signal: b.signal,
        timeoutMs: left,
      }, b.hooks),
    spec.signal,
  );
}

/** The session's confinement, plus the paths the call itself may write (its artifact dir). */
function boundConfinement(c: Confinement, spec: CommandSpec): Confinement {
  return { ...c, writable: [...(c.writable ?? []), ...(spec.confinement?.writable ?? [])] };
}
