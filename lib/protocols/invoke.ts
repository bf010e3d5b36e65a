/**
 * One command-tool call end to end: private call directories, the tool environment,
 * the protocol's stdin/argv, `runBounded`, normalization (path images embedded before
 * the output directory goes), and removal of the call directories on every path —
 * success, failure, timeout, cancellation and exceptions.
 *
 * @module
 */

import type { Protector } from "../redact/types.ts";
import { type CallDirs, createCallDirs } from "../process/call_dirs.ts";
import { toolEnvironment } from "../process/env.ts";
import type { ProcessRecord } from "../process/proc_identity.ts";
import { runBounded, type RunOutcome } from "../process/run.ts";
import type { RunGuard } from "../process/run_guard.ts";
import type { Confine } from "../process/sandbox_init.ts";
import type { Readable } from "node:stream";
import { errorResult, type ToolResult } from "../results/types.ts";
import { buildJsonRequest, type JsonContext } from "./json_request.ts";
import { normalizeJsonOutput } from "./json_output.ts";
import { substitutePlainArgv } from "./plain_argv.ts";
import type { TakenSpare, WarmPool, WarmRequest } from "../sandbox/warm_pool.ts";
import { hostCallFits } from "../sandbox/warm_host.ts";
import { unconfinedEnv } from "../sandbox/warm_fresh.ts";
import { normalizePlainOutput, PLAIN_RETAIN_BYTES } from "./plain_output.ts";

/** What both protocols need to run a command. */
export interface CommandCallBase {
  /** Absolute path of the executable (resolved by the caller). */
  command: string;
  /** Working directory (the owner's folder, or a file Artifact's containing folder). */
  cwd: string;
  /** State directory; call directories go to `<stateDir>/calls/<random>/`. */
  stateDir: string;
  /** The author's own environment (e.g. `process.env`); `ARTIFACTIZE_*`/`TOOLHOST_*` are stripped. */
  baseEnv: Record<string, string | undefined>;
  /** Variables added on purpose after stripping (e.g. a session directory). */
  extraEnv?: Record<string, string>;
  /**
   * Variables granted to this call alone (a plugin's protected values): in the tool's
   * environment, under `extraEnv`, and never in the base environment of a spare spawned
   * after the call (so no process but the granted call's own holds them). Default none.
   */
  grantedEnv?: Record<string, string>;
  /** Deadline, 1..2147483647 ms. Default 120000. */
  timeoutMs?: number;
  /** Cancellation. */
  signal?: AbortSignal;
  /** Called with the process group's identity before it is admitted. */
  onSpawn?: (record: ProcessRecord) => void | Promise<void>;
  /** SIGTERM→SIGKILL grace. Default 2000 ms. */
  graceMs?: number;
  /** Called with the finished run (e.g. to retire a journaled group once confirmed gone). */
  onSettled?: (run: RunOutcome) => void;
  /** Resource-limit enforcement (lib/limits). Default none. */
  guard?: RunGuard;
  /** Confinement (lib/sandbox); the call's output and tmp dirs are writable inside. */
  confine?: Confine;
  /** Receives copies of the tool's stderr (never a result). Default none. */
  onStderr?: (chunk: Uint8Array) => void;
  /**
   * Warm spares (lib/sandbox/warm_pool.ts): a call without `guard` runs in a pre-spawned
   * sandbox (confined) or session leader (unconfined) of its key when there is one, and
   * the next is spawned for the key. Default none (every call spawns its own).
   */
  warm?: WarmPool;
  /**
   * Never run in a spare (a confined call joining a session's network); `warm` only
   * counts the call, as it does a call with `guard` (no spare's spawn contends with its
   * start). Default false.
   */
  coldOnly?: boolean;
}

/** A consumer of a plain call's whole stdout (lib/spill: `overflow = "artifact"`). */
export interface StdoutSpill {
  /** Attach to the tool's stdout (called once, at spawn). */
  attach(stdout: Readable): void;
  /** Turn the normalized result into its final form. */
  finish(run: RunOutcome, result: ToolResult): Promise<ToolResult>;
}

/** A json-protocol call. */
export interface JsonCommandCall extends CommandCallBase {
  /** Resolved argv (scoped Artifact references already replaced). */
  argv: string[];
  /** The request context without the per-call directories (filled in here). */
  context: Omit<JsonContext, "outputDir" | "tmpDir">;
  /** Admitted tool arguments. */
  args: Record<string, unknown>;
  /** Protected values: output holding one outside a JSON string is refused. Default none. */
  protect?: Protector;
}

/** A plain-protocol call. */
export interface PlainCommandCall extends CommandCallBase {
  /** argv template with `{property}` placeholders. */
  template: string[];
  /** Top-level `input_schema.properties` names. */
  properties: string[];
  /** Admitted tool arguments. */
  args: Record<string, unknown>;
  /** Where oversized stdout goes instead of being truncated. Default: truncated. */
  stdoutSpill?: StdoutSpill;
  /** Protected values, redacted from stdout before it is cut. Default none. */
  protect?: Protector;
  /** Exit statuses that mean success. Default `[0]`. */
  successExitCodes?: readonly number[];
}

const CANCELLED = "The tool call was cancelled.";

type OnSpawn = CommandCallBase["onSpawn"];

/** What a call's tool gets on top of the author's environment: its grants, then `extraEnv`. */
function callExtraEnv(call: CommandCallBase): Record<string, string> {
  if (call.grantedEnv === undefined) return call.extraEnv ?? {};
  return { ...call.grantedEnv, ...call.extraEnv };
}

/** The warm spare request of `call`, when it may run warm. */
function warmRequest(call: CommandCallBase, argv: readonly string[]): WarmRequest | undefined {
  if (call.warm === undefined || call.guard !== undefined || call.coldOnly) return undefined;
  const req = { confine: call.confine, cwd: call.cwd, stateDir: call.stateDir };
  if (call.confine !== undefined) return req;
  // Unconfined, a long call line costs its waiter more than the spawn it saves; only
  // what the environment changes from the spare's base is on it.
  if (!hostCallFits(call.command, argv, call.cwd)) return undefined;
  const env = unconfinedEnv(toolEnvironment(call.baseEnv, callExtraEnv(call)));
  const fits = (base: Readonly<Record<string, string>>) =>
    hostCallFits(call.command, argv, call.cwd, env, base);
  // The next spare's base: what every call gets, never what this one was granted.
  const spareEnv = Object.keys(call.grantedEnv ?? {}).length === 0
    ? env
    : unconfinedEnv(toolEnvironment(call.baseEnv, call.extraEnv ?? {}));
  return { ...req, env: spareEnv, fits };
}

async function withCallDirs(
  call: CommandCallBase,
  argv: readonly string[],
  body: (dirs: CallDirs, spare?: TakenSpare, onSpawn?: OnSpawn) => Promise<ToolResult>,
): Promise<ToolResult> {
  const req = warmRequest(call, argv);
  // take() marks the key busy until replenish(), enter() the pool until leave().
  const warm = call.warm;
  if (req === undefined) warm?.enter();
  const spare = req === undefined ? undefined : await warm!.take(req);
  let started = false;
  // The pool spawns no spare while a call starts (warm_pool.ts `started`).
  const onSpawn: OnSpawn | undefined = warm === undefined ? call.onSpawn : (record) => {
    const r = call.onSpawn?.(record);
    if (!started) warm.started(req);
    started = true;
    return r;
  };
  try {
    // Made ahead while an earlier call's tool ran (ready_dirs.ts), or now.
    const dirs = spare?.dirs ?? warm?.takeDirs(call.stateDir) ??
      await createCallDirs(call.stateDir);
    return await inCallDirs(dirs, spare, (d, s) => body(d, s, onSpawn));
  } finally {
    if (req !== undefined) warm!.replenish(req, started);
    else warm?.leave(started);
  }
}

async function inCallDirs(
  dirs: CallDirs,
  spare: TakenSpare | undefined,
  body: (dirs: CallDirs, spare?: TakenSpare) => Promise<ToolResult>,
): Promise<ToolResult> {
  let result: ToolResult;
  try {
    result = await body(dirs, spare);
  } finally {
    await spare?.settle();
    await dirs.remove().catch(() => {
      result = errorResult("The tool call's private directories could not be removed.");
    });
  }
  return result;
}

/** A group confirmed ended needs no second look when its call dirs are removed. */
function settled(dirs: CallDirs, run: RunOutcome): void {
  if (run.cleanupConfirmed && run.record !== undefined) dirs.retire(run.record);
}

/** The run's options: in `spare` when it takes the call, else spawned cold. */
function runOptions(
  call: CommandCallBase,
  dirs: CallDirs,
  args: string[],
  spare?: TakenSpare,
  onSpawn = call.onSpawn,
) {
  const env = toolEnvironment(call.baseEnv, callExtraEnv(call), { tmpDir: dirs.tmpDir });
  return {
    command: call.command,
    args,
    spare: spare?.handover(call.command, args, env),
    cwd: call.cwd,
    env,
    timeoutMs: call.timeoutMs,
    signal: call.signal,
    callDirs: dirs, // journals the group, so `toolhost sweep` can end it after a crash
    onSpawn,
    graceMs: call.graceMs,
    guard: call.guard,
    confine: call.confine,
    sandboxWritable: [dirs.outputDir, dirs.tmpDir],
    onStderr: call.onStderr,
  };
}

/**
 * Run a json-protocol command tool and return its normalized result.
 *
 * @example
 * ```ts
 * import { invokeJsonCommand } from "./invoke.ts";
 * import process from "node:process";
 * const result = await invokeJsonCommand({
 *   command: "/work/app/tools/summary", argv: [], cwd: "/work/app", stateDir: "/tmp/state",
 *   baseEnv: process.env,
 *   context: { artifactId: "app", artifactPath: "/work/app", scope: {} },
 *   args: { section: "summary" },
 * });
 * ```
 */
export async function invokeJsonCommand(call: JsonCommandCall): Promise<ToolResult> {
  if (call.signal?.aborted) return errorResult(CANCELLED);
  return await withCallDirs(call, call.argv, async (dirs, spare, onSpawn) => {
    const context = { ...call.context, outputDir: dirs.outputDir, tmpDir: dirs.tmpDir };
    const run = await runBounded({
      ...runOptions(call, dirs, call.argv, spare, onSpawn),
      stdin: buildJsonRequest(context, call.args),
    });
    settled(dirs, run);
    call.onSettled?.(run);
    return await normalizeJsonOutput(run, dirs.outputDir, call.protect);
  });
}

/**
 * Run a plain-protocol command tool (empty stdin) and return its normalized result.
 * Argument substitution happens before anything is created or spawned.
 *
 * @example
 * ```ts
 * import { invokePlainCommand } from "./invoke.ts";
 * import process from "node:process";
 * const result = await invokePlainCommand({
 *   command: "/usr/bin/rg", template: ["--fixed-strings", "--", "{query}", "."],
 *   properties: ["query"], args: { query: "TODO" },
 *   cwd: "/work/app", stateDir: "/tmp/state", baseEnv: process.env,
 * });
 * ```
 */
export async function invokePlainCommand(call: PlainCommandCall): Promise<ToolResult> {
  const argv = substitutePlainArgv(call.template, call.properties, call.args);
  if (call.signal?.aborted) return errorResult(CANCELLED);
  return await withCallDirs(call, argv, async (dirs, spare, onSpawn) => {
    const run = await runBounded({
      ...runOptions(call, dirs, argv, spare, onSpawn),
      retainStdoutBytes: PLAIN_RETAIN_BYTES,
      onStdout: call.stdoutSpill ? (s) => call.stdoutSpill!.attach(s) : undefined,
    });
    settled(dirs, run);
    call.onSettled?.(run);
    const result = normalizePlainOutput(run, call.protect, call.successExitCodes);
    return call.stdoutSpill ? await call.stdoutSpill.finish(run, result) : result;
  });
}
