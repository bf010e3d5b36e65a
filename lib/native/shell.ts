/**
 * `shell_exec`: run a shell string (`/bin/sh -c`) or an executable with an argument
 * array — exactly one of the two — in a folder of the declaring Artifact, in its own
 * process group with a 30 s default deadline (TERM, then KILL), capturing stdout and
 * stderr separately and bounded. The environment starts from PATH and HOME only, then
 * explicit `env` overrides, then values granted by plugins for `protectedBindings`, plus a
 * private TMPDIR. The json block stays within 512 KiB: where JSON escaping of the kept
 * output (control characters) would pass it, the stream texts are cut further and marked
 * `truncated`. `shell_exec` is not an OS sandbox: confinement covers its working folder,
 * not what the command does (see lib/native/README.md).
 *
 * @module
 */

import fs from "node:fs";
import path from "node:path";
import { PathError, ToolhostError } from "../errors/errors.ts";
import { createCallDirs } from "../process/call_dirs.ts";
import { STRIPPED_ENV_PREFIXES } from "../process/env.ts";
import { errorResult, jsonResult, LIMITS, type ToolResult } from "../results/types.ts";
import { resolveLogicalPath } from "../paths/resolve.ts";
import { withSandbox } from "../builtins/common.ts";
import { resolveProgram } from "../workspace/program_path.ts";
import { type CaptureOutcome, runCaptured } from "./capture.ts";
import type { NativeEnv } from "./context.ts";
import { NATIVE_LIMITS } from "./limits.ts";
import { fitUtf8 } from "./text.ts";
import { jsonBytes } from "../results/json_text.ts";
import { fitJsonText } from "./json_budget.ts";
import { protectedHead } from "../redact/head.ts";
import type { Protector } from "../redact/types.ts";
import { showPath } from "../paths/show_path.ts";

/** Arguments of `shell_exec`. */
export interface ShellExecArgs {
  /** Shell string (`sh -c`). */
  command?: string;
  /** Program (PATH name, or a logical path inside the Artifact). */
  executable?: string;
  /** Arguments of `executable`. */
  args?: string[];
  /** Logical working folder. */
  cwd?: string;
  /** Deadline (default 30000). */
  timeoutMs?: number;
  /** Bytes kept per stream (default 32 KiB). */
  maxOutputBytes?: number;
  /** Environment overrides. */
  env?: Record<string, string>;
  /** ENV_NAME → protected:// reference (resolved by the protected-values plugin). */
  protectedBindings?: Record<string, string>;
}

function invalid(message: string): ToolhostError {
  return new ToolhostError("INVALID_ARGUMENTS", message);
}

/** The physical folder behind a logical cwd, verified without following symlinks. */
async function physicalCwd(env: NativeEnv, cwd: string | undefined): Promise<string> {
  if (env.declaring.kind === "file") {
    if (cwd !== undefined && cwd !== ".") {
      throw new PathError("A file Artifact runs commands in its own folder; omit cwd.");
    }
    return env.declaring.cwd;
  }
  const r = resolveLogicalPath(env, cwd, { allowDotRoot: true, label: "cwd" });
  if (r.fileOnly !== undefined) {
    throw new PathError(`${showPath(r.path)} is a file; cwd must be a folder.`);
  }
  return await withSandbox(r, env, (box) => {
    const d = box.openDir(r.components, r.path);
    try {
      return box.procfs
        ? fs.readlinkSync(`/proc/self/fd/${d.fd}`)
        : path.join(box.real, ...r.components);
    } finally {
      box.closeDir(d);
    }
  });
}

/** The absolute program: a PATH name, or a logical path to a regular executable file. */
async function program(
  env: NativeEnv,
  a: ShellExecArgs,
  pathVar: string | undefined,
): Promise<string> {
  if (a.command !== undefined) return "/bin/sh";
  const exe = a.executable!;
  if (!exe.includes("/")) {
    const p = resolveProgram(exe, "/", "/", { PATH: pathVar });
    if (!p.ok) throw new ToolhostError("TOOL_ERROR", "The executable was not found on PATH.");
    return p.path;
  }
  const r = resolveLogicalPath(env, exe, { label: "executable" });
  return await withSandbox(r, env, (box) => {
    const f = box.openFile(r.components, r.path);
    try {
      if ((fs.fstatSync(f.fd).mode & 0o111) === 0) {
        throw new PathError(`${showPath(r.path)} is not executable.`);
      }
      return box.procfs
        ? fs.readlinkSync(`/proc/self/fd/${f.fd}`)
        : path.join(box.real, ...r.components);
    } finally {
      fs.closeSync(f.fd);
    }
  });
}

/**
 * The process environment: PATH and HOME, overrides, granted values, private TMPDIR.
 *
 * @example
 * ```ts
 * import { shellEnvironment } from "./shell.ts";
 * shellEnvironment({ PATH: "/bin", HOME: "/h", SECRET: "x" }, { A: "1" }, {}, "/tmp/t");
 * // { PATH: "/bin", HOME: "/h", A: "1", TMPDIR: "/tmp/t", TMP: "/tmp/t", TEMP: "/tmp/t" }
 * ```
 */
export function shellEnvironment(
  base: Readonly<Record<string, string>>,
  overrides: Readonly<Record<string, string>>,
  granted: Readonly<Record<string, string>>,
  tmpDir: string,
): Record<string, string> {
  const env: Record<string, string> = {};
  if (base.PATH !== undefined) env.PATH = base.PATH;
  if (base.HOME !== undefined) env.HOME = base.HOME;
  for (const [k, v] of Object.entries(overrides)) env[k] = v;
  env.TMPDIR = env.TMP = env.TEMP = tmpDir;
  for (const [k, v] of Object.entries(granted)) env[k] = v;
  return env;
}

function checkArgs(a: ShellExecArgs, granted: Readonly<Record<string, string>>): void {
  if ((a.command === undefined) === (a.executable === undefined)) {
    throw invalid("Give exactly one of `command` (a shell string) or `executable` (with `args`).");
  }
  if (a.args !== undefined && a.executable === undefined) {
    throw invalid("`args` goes with `executable`; a `command` string takes no `args`.");
  }
  for (const k of Object.keys(a.env ?? {})) {
    if (STRIPPED_ENV_PREFIXES.some((p) => k.toUpperCase().startsWith(p))) {
      throw invalid("`env` may not set TOOLHOST_* or ARTIFACTIZE_* variables.");
    }
  }
  const bound = Object.keys(a.protectedBindings ?? {});
  if (bound.some((k) => !Object.hasOwn(granted, k))) {
    throw new ToolhostError(
      "TOOL_ERROR",
      "protectedBindings were given but not resolved: enable the protected-values plugin.",
    );
  }
}

/** What is kept of one stream. */
interface StreamReport {
  text: string;
  bytes: number;
  truncated: boolean;
}

function streamReport(
  bytes: Uint8Array,
  total: number,
  max: number,
  protect: Protector | undefined,
): StreamReport {
  const kept = protectedHead(protect, bytes, total > bytes.length); // before any cut
  const text = fitUtf8(new TextDecoder("utf-8", { fatal: false }).decode(kept), max);
  return { text, bytes: total, truncated: total > bytes.length };
}

/**
 * Cut the stream texts further where JSON escaping (control characters, replacement
 * characters) would take the block past `cap` bytes; a cut stream says `truncated`.
 */
function fitStreams<T extends { stdout: StreamReport; stderr: StreamReport }>(
  data: T,
  cap: number,
): T {
  if (jsonBytes(data) <= cap) return data;
  const base = jsonBytes({
    ...data,
    stdout: { ...data.stdout, text: "" },
    stderr: { ...data.stderr, text: "" },
  });
  const avail = Math.max(0, cap - base);
  const half = Math.floor(avail / 2);
  const needOut = jsonBytes(data.stdout.text) - 2;
  const needErr = jsonBytes(data.stderr.text) - 2;
  const out = needErr < half ? avail - needErr : Math.min(needOut, half);
  const cut = (s: StreamReport, budget: number): StreamReport => {
    const text = fitJsonText(s.text, budget);
    return text.length === s.text.length ? s : { ...s, text, truncated: true };
  };
  return { ...data, stdout: cut(data.stdout, out), stderr: cut(data.stderr, avail - out) };
}

function report(
  run: CaptureOutcome,
  cwdLogical: string,
  artifactId: string,
  max: number,
  maxResultBytes: number,
  protect: Protector | undefined,
): ToolResult {
  if (run.spawnFailure) {
    return errorResult(`The command could not be started (${run.spawnFailure}).`);
  }
  if (!run.cleanupConfirmed) {
    return errorResult("The command's processes could not be confirmed stopped.");
  }
  if (run.cancelled) return errorResult("The call was cancelled; the command was stopped.");
  return jsonResult(fitStreams({
    artifactId,
    cwd: cwdLogical,
    exitCode: run.exitCode,
    signal: run.signal,
    timedOut: run.timedOut,
    outputLimitExceeded: run.overflow,
    durationMs: run.durationMs,
    stdout: streamReport(run.stdout, run.stdoutBytes, max, protect),
    stderr: streamReport(run.stderr, run.stderrBytes, max, protect),
  }, maxResultBytes));
}

/**
 * Run `shell_exec`. `maxResultBytes` (default 512 KiB) bounds the json block.
 *
 * @example
 * ```ts
 * import { runShellExec } from "./shell.ts";
 * // await runShellExec({ command: "npm test", cwd: "web" }, env);
 * ```
 */
export async function runShellExec(
  a: ShellExecArgs,
  env: NativeEnv,
  maxResultBytes: number = LIMITS.maxJsonBytes,
): Promise<ToolResult> {
  checkArgs(a, env.grantedEnv);
  const cwd = await physicalCwd(env, a.cwd);
  const merged = { ...env.baseEnv, ...(a.env ?? {}) };
  const exe = await program(env, a, merged.PATH);
  const max = a.maxOutputBytes ?? NATIVE_LIMITS.shellDefaultOutputBytes;
  const dirs = await createCallDirs(env.stateDir);
  try {
    const run = await runCaptured({
      command: exe,
      args: a.command !== undefined ? ["-c", a.command] : (a.args ?? []),
      cwd,
      env: shellEnvironment(env.baseEnv, a.env ?? {}, env.grantedEnv, dirs.tmpDir),
      timeoutMs: a.timeoutMs ?? NATIVE_LIMITS.shellDefaultTimeoutMs,
      retainBytes: max,
      signal: env.signal,
      callDirs: dirs,
      confine: env.confine,
      sandboxWritable: [dirs.outputDir, dirs.tmpDir],
    });
    return report(run, a.cwd ?? ".", env.declaring.id, max, maxResultBytes, env.protect);
  } finally {
    await dirs.remove().catch(() => {});
  }
}
