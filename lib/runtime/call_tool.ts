/**
 * One call through the registry: admission (64 KiB JSON object valid against the schema),
 * admitted file targets re-validated, then a built-in in-process or a command in its own
 * process group, and a normalized result. Errors a model can act on come back as error
 * results; nothing here echoes argument values.
 *
 * @module
 */

import { runBuiltin } from "../builtins/run.ts";
import type { BuiltinEnv } from "../builtins/context.ts";
import { admitOrRefuse } from "../schema/admit_args.ts";
import { compileSchema } from "../schema/compile_schema.ts";
import { errnoOf } from "../paths/errno.ts";
import { errorResult, LIMITS, type ToolResult } from "../results/types.ts";
import { resultBytes, resultBytesAtMost } from "../results/json_text.ts";
import type { CallHost, CallOptions } from "./call_host.ts";
import type { RegisteredTool } from "../registry/selection.ts";
import { descendantsOf } from "../workspace/scope.ts";
import type { Artifact, BuiltinToolDecl, CommandToolDecl } from "../workspace/types.ts";
import { makeUnlinkedDirsSync } from "../paths/unlinked_dirs.ts";
import { artifactRootsFor, renderEnvelopes } from "./artifact_refs.ts";
import { type CommandSpec, preflightCommand, runCommand } from "./command_tool.ts";
import { callBoundTool } from "../sessions/bound_call.ts";
import { checkScopeTargets } from "./scope_targets.ts";
import { type PinnedRoot, pinRoot, releasePin } from "../paths/root_pin.ts";
import { callBuiltinLike, isBuiltinLike } from "../plugins/builtin_like.ts";
import type { CallGrant } from "../plugins/host_parts.ts";
import { trustOptions } from "../spill/command_options.ts";
import { publishedName } from "../workspace/names.ts";
import { join } from "node:path";
import { confinementOf } from "../sandbox/confinement_of.ts";
import { openConfine, unconfinableMessage } from "../sandbox/confine.ts";
import type { Confine } from "../process/sandbox_init.ts";
import { claimOwnedDir } from "../process/call_dirs.ts";

const HELP_TIMEOUT_MS = 30_000;

/**
 * Call a registered tool. Resolves to a normalized ToolResult for successes, authored
 * errors and system errors alike.
 *
 * @example
 * ```ts
 * import { callTool } from "./call_tool.ts";
 * // const result = await callTool(reg, reg.tool("read_app"), { path: "README.md" }, {});
 * ```
 */
export async function callTool(
  reg: CallHost,
  tool: RegisteredTool,
  args: unknown,
  opts: CallOptions,
): Promise<ToolResult> {
  const admission = admitOrRefuse(args, compileSchema(tool.inputSchema));
  if (!admission.ok) return admission.result;
  const admitted = admission.args;
  if (opts.signal?.aborted) return errorResult("The call was cancelled before it started.");
  const ws = reg.workspace;
  const artifact = ws.artifacts.get(tool.artifactId)!;
  const decl = tool.decl;
  const pin = sandboxPin(reg, artifact, decl);
  const targetProblem = checkScopeTargets(ws, reg.selection.scope, pin && artifact.id);
  if (targetProblem) {
    if (pin) releasePin(pin);
    return errorResult(`The call was refused: ${targetProblem}.`);
  }
  // BeforeCall hooks gate the call (a denial never starts anything),
  // their env grant reaches the process, afterCall hooks and redaction see the result.
  const subject = {
    tool: tool.name,
    artifactId: tool.artifactId,
    ...(decl.type === "builtin" ? { builtin: decl.builtin } : {}),
    ...(decl.type === "command" && decl.session ? { session: decl.session } : {}),
    args: admitted,
  };
  const running = reg.plugins.runCall(subject, opts.signal, async (grant) => {
    try {
      const result = decl.type === "builtin"
        ? await callBuiltin(reg, artifact, decl, admitted, opts, grant, tool.name, pin)
        : await callCommand(reg, artifact, decl, admitted, opts, grant);
      return enforceResultSize(result);
    } catch (e) {
      const code = systemErrorCode(e);
      if (code === undefined) throw e;
      // A filesystem failure preparing the call (an unusable state directory, say): an
      // error result naming the errno, never the physical path Node's message holds.
      return errorResult(
        `toolhost could not prepare the call in its state directory (${code}); ` +
          "check that the state directory is a writable folder.",
      );
    }
  });
  // Only the call's synchronous first step may take the pin (see sandboxPin).
  if (pin) releasePin(pin);
  return await running;
}

/**
 * For a file built-in declared on a folder when no plugin hook runs: the folder opened and
 * checked as an exact sandbox root. It stands in for the folder's pre-call target check
 * (the same check: its realpath is where it was declared), and the built-in's sandbox
 * takes it — in the same synchronous step, with nothing run in between, so it is the
 * folder that opening it again at that moment would find. Undefined otherwise (or when
 * pinning fails: the target check then runs as usual and says what is wrong).
 */
function sandboxPin(
  reg: CallHost,
  artifact: Artifact,
  decl: RegisteredTool["decl"],
): PinnedRoot | undefined {
  if (decl.type !== "builtin" || isBuiltinLike(decl) || decl.builtin === "help") return undefined;
  if (artifact.kind !== "folder" || reg.plugins.active) return undefined;
  return pinRoot(artifact.physicalPath);
}

function systemErrorCode(e: unknown): string | undefined {
  const code = errnoOf(e);
  return e instanceof Error && code !== undefined && /^E[A-Z]+$/.test(code) ? code : undefined;
}

async function callBuiltin(
  reg: CallHost,
  artifact: Artifact,
  decl: BuiltinToolDecl,
  args: Record<string, unknown>,
  opts: CallOptions,
  grant: CallGrant,
  name: string,
  pin?: PinnedRoot,
): Promise<ToolResult> {
  if (isBuiltinLike(decl)) return await callNative(reg, artifact, decl, args, opts, grant, name);
  if (decl.builtin === "help") {
    const changed = await reg.verifyBeforeRun(name);
    if (changed) return changed;
    return await runCommand({
      ws: reg.workspace,
      artifact,
      scope: reg.selection.scope,
      command: decl.args![0],
      args: ["--help"],
      protocol: "plain",
      properties: [],
      callArgs: {},
      timeoutMs: HELP_TIMEOUT_MS,
      executionPaths: [],
      stateDir: reg.stateDir,
      env: reg.env,
      signal: opts.signal,
      protect: reg.plugins.redactor,
    });
  }
  const env = builtinEnv(reg, artifact, opts.signal);
  return await runBuiltin(decl, args, pin ? { ...env, pinnedRoot: pin } : env);
}

/** A native (or plugin) tool, confined when it declares a sandbox. */
async function callNative(
  reg: CallHost,
  artifact: Artifact,
  decl: BuiltinToolDecl,
  args: Record<string, unknown>,
  opts: CallOptions,
  grant: CallGrant,
  name: string,
): Promise<ToolResult> {
  // A native tool that runs a program (`git`) runs the one locked: checked like a command's.
  const changed = await reg.verifyBeforeRun(name);
  if (changed) return changed;
  const files = builtinEnv(reg, artifact, opts.signal);
  const confined = nativeConfine(reg, artifact, decl);
  if (typeof confined === "string") return errorResult(confined);
  let result: ToolResult;
  let created: string | undefined;
  try {
    result = await callBuiltinLike(decl, {
      ...(confined ? { confine: confined } : {}),
      plugins: reg.plugins,
      stateDir: reg.stateDir,
      env: reg.env,
      tool: name,
      args,
      files,
      grant,
    });
  } finally {
    // A missing trust anchor its process created is moved aside (anchor_watch.ts).
    created = confined?.settle?.();
  }
  return created === undefined ? result : errorResult(created);
}

/**
 * The view a built-in gets: its declaring Artifact and descendants, with admission flags.
 *
 * @example
 * ```ts
 * import { builtinEnv } from "./call_tool.ts";
 * // builtinEnv(reg, ws.artifacts.get("app")!)
 * ```
 */
export function builtinEnv(reg: CallHost, artifact: Artifact, signal?: AbortSignal): BuiltinEnv {
  const view = (a: Artifact) => ({
    id: a.id,
    kind: a.kind,
    physicalPath: a.physicalPath,
    cwd: a.cwd,
  });
  const descendants: BuiltinEnv["descendants"] = new Map();
  if (artifact.kind === "folder") {
    for (const d of descendantsOf(reg.workspace, artifact.id)) {
      const logical = artifact.relPath === "."
        ? d.relPath
        : d.relPath.slice(artifact.relPath.length + 1);
      descendants.set(logical, { view: view(d), admitted: reg.selection.scope.includes(d.id) });
    }
  }
  return {
    declaring: view(artifact),
    descendants,
    workspace: reg.workspace,
    stateDir: reg.stateDir, // refused by identity inside every sandbox
    signal,
    protect: reg.plugins.redactor,
  };
}

async function callCommand(
  reg: CallHost,
  artifact: Artifact,
  decl: CommandToolDecl,
  args: Record<string, unknown>,
  opts: CallOptions,
  grant: CallGrant,
): Promise<ToolResult> {
  const props = decl.inputSchema.properties;
  // The tool's own artifact folder: a confined tool gets it writable and sees no other
  // tool's artifacts or spilled output (those of a tool with another policy included).
  const home = {
    artifactDir: join(reg.artifactDir, publishedName(decl.name, artifact.id)),
    artifacts: reg.artifacts,
  };
  const spec: CommandSpec = {
    ws: reg.workspace,
    artifact,
    scope: reg.selection.scope,
    command: decl.command,
    args: decl.args,
    protocol: decl.protocol,
    properties: typeof props === "object" && props !== null ? Object.keys(props) : [],
    callArgs: args,
    timeoutMs: decl.timeoutMs,
    executionPaths: decl.executionPaths,
    stateDir: reg.stateDir,
    env: reg.env,
    extraEnv: { TOOLHOST_ARTIFACT_DIR: home.artifactDir },
    grantedEnv: grant.env,
    signal: opts.signal,
    protect: reg.plugins.redactor,
    successExitCodes: decl.successExitCodes,
    onStderr: reg.stderr,
    ...trustOptions(home, artifact.id, decl), // limits, overflow spill
    ...confinementOf(decl, reg.stateDir, [home.artifactDir]),
    // Bound calls join their session's network: they keep the cold path.
    ...(decl.session === undefined ? { warm: reg.warm } : {}),
  };
  // A call that cannot run (argv substitution) is refused before a session starts.
  const refused = decl.session !== undefined ? preflightCommand(spec) : undefined;
  if (refused) return refused;
  makeUnlinkedDirsSync(home.artifactDir, 3, 0o700); // `artifacts/<id>/<tool>`: never links
  claimOwnedDir(reg.artifactDir); // so that a sweep removes it should this process be killed
  // As late as possible before the process starts: what runs is still what was pinned.
  const changed = await reg.verifyBeforeRun(publishedName(decl.name, artifact.id));
  if (changed) return changed;
  // A bound tool runs inside its lazily started tool session.
  const result = decl.session !== undefined
    ? await callBoundTool(reg.sessions, { artifact, session: decl.session, spec })
    : await runCommand(spec);
  if (decl.protocol !== "json") return result; // only json results carry envelopes
  const roots = () => artifactRootsFor(reg.workspace, artifact, decl, home.artifactDir);
  return await renderEnvelopes(result, roots, reg.artifacts);
}

/**
 * The normalized result bound: a result whose compact JSON exceeds 8 MiB becomes an error
 * result naming its size.
 *
 * @example
 * ```ts
 * import { enforceResultSize } from "./call_tool.ts";
 * enforceResultSize({ content: [{ type: "text", text: "ok" }], isError: false }); // unchanged
 * ```
 */
export function enforceResultSize(r: ToolResult): ToolResult {
  // Json texts are kept for the MCP mapping; UTF-8 is counted only near the bound.
  if (resultBytesAtMost(r) <= LIMITS.maxResultBytes) return r;
  const bytes = resultBytes(r);
  if (bytes <= LIMITS.maxResultBytes) return r;
  return errorResult(
    `The tool's result is ${bytes} bytes; the limit is 8 MiB (${LIMITS.maxResultBytes}).`,
  );
}

/**
 * Release everything a registry owns (sessions and artifact directories, as they land).
 *
 * @example
 * ```ts
 * import { closeRegistry } from "./call_tool.ts";
 * // await closeRegistry(reg);
 * ```
 */
export function closeRegistry(reg: CallHost): Promise<void> {
  // Stop and clean up every started tool session (no-op when none).
  return reg.sessions.close();
}

/** The confinement of a native tool's processes, or the refusal text. */
function nativeConfine(
  reg: CallHost,
  artifact: Artifact,
  decl: BuiltinToolDecl,
): Confine | string | undefined {
  const { confinement } = confinementOf(decl, reg.stateDir);
  if (confinement === undefined) return undefined;
  const c = openConfine(confinement, {
    ws: reg.workspace,
    scope: reg.selection.scope,
    owner: artifact.id,
    executionPaths: [],
  });
  return c.ok ? c.confine : `The tool was refused. ${unconfinableMessage(c.reason)}`;
}
