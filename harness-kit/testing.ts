/**
 * Test helpers that run an author's tool or harness through the real toolhost registry
 * and session supervisor in a temporary workspace, so a test sees exactly what an agent
 * would: admission, the json/plain protocols, normalization, lazy sessions and cleanup.
 *
 * The temporary workspace holds one folder Artifact `app` (with `files` written into it)
 * and the agent eval `app/review`. Commands are looked up as toolhost does: a bare name on
 * PATH (`node`, `deno`, `sh`), or a path relative to the Artifact folder (for `files`).
 *
 * @module
 */

import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { harnessCommand, LAUNCHER_PATH, viaLauncher } from "./harness_command.ts";
import { Registry } from "../lib/registry/registry.ts";
import type { ToolResult } from "../lib/results/types.ts";
import { sessionsRoot } from "../lib/sessions/session_dir.ts";
import { loadWorkspace } from "../lib/workspace/load_workspace.ts";

/** A file written into the temporary Artifact folder: text, or text with a mode. */
export type TestFile = string | { text: string; mode?: number };

/** How one command tool is declared. */
export interface ToolSpec {
  /** Command: a PATH name, or a path relative to the Artifact folder. */
  command: string;
  /** argv template. Default `[]`. */
  args?: string[];
  /** Protocol. Default `"json"`. */
  protocol?: "json" | "plain";
  /** Input schema. Default: an object that allows any properties. */
  inputSchema?: Record<string, unknown>;
  /** Deadline in ms. Default 120000. */
  timeoutMs?: number;
}

/** Options of {@linkcode testTool}. */
export interface TestToolOptions extends ToolSpec {
  /** Files to write into the Artifact folder (relative paths). */
  files?: Record<string, TestFile>;
}

/** A tool under test. */
export interface ToolUnderTest extends AsyncDisposable {
  /** The temporary workspace root. */
  root: string;
  /** Call the tool (published as `tool_app`) with `args` (default `{}`). */
  call(args?: Record<string, unknown>, options?: { signal?: AbortSignal }): Promise<ToolResult>;
  /** Close the registry and remove the workspace. Idempotent. */
  close(): Promise<void>;
}

/** A session command (start or stop). */
export interface SessionCommandSpec {
  /** Command (as for tools). */
  command: string;
  /** argv. */
  args: string[];
}

/** Options of {@linkcode testSession}. */
export interface TestSessionOptions {
  /**
   * A harness-kit harness file (absolute path): start, stop and each action run it as
   * `HARNESS start|stop|ACTION`: a `.ts` harness with `deno run -A --no-config` on the
   * Deno running the test (its own path; under Node.js a `.ts` harness is refused with an
   * error saying to use Deno), a JavaScript one with `node` (under Node.js, the same one).
   */
  harness?: string;
  /** With `harness`: the actions to publish, by name (value: input schema or `{}`). */
  actions?: Record<string, Record<string, unknown>>;
  /** Without `harness`: the start command. */
  start?: SessionCommandSpec;
  /** Without `harness`: the stop command. */
  stop?: SessionCommandSpec;
  /** Without `harness`: the bound tools by name. */
  tools?: Record<string, ToolSpec>;
  /** Files to write into the Artifact folder. */
  files?: Record<string, TestFile>;
  /** Bound of the stop command in ms. Default 30000. */
  stopTimeoutMs?: number;
}

/** A session under test. */
export interface SessionUnderTest extends AsyncDisposable {
  /** The temporary workspace root. */
  root: string;
  /** The session directory once the session started, else undefined. */
  readonly sessionDir: string | undefined;
  /** Call bound tool `name` (its short name) with `args` (default `{}`). */
  call(
    name: string,
    args?: Record<string, unknown>,
    options?: { signal?: AbortSignal },
  ): Promise<ToolResult>;
  /**
   * Stop the session and remove the workspace; rejects when cleanup was not confirmed or
   * when a session directory was left behind. Idempotent.
   */
  close(): Promise<void>;
}

function tomlValue(v: unknown): string {
  if (typeof v === "string") return JSON.stringify(v);
  if (typeof v === "number" || typeof v === "boolean") return String(v);
  if (Array.isArray(v)) return `[${v.map(tomlValue).join(", ")}]`;
  if (typeof v === "object" && v !== null) {
    return `{ ${
      Object.entries(v).map(([k, x]) => `${JSON.stringify(k)} = ${tomlValue(x)}`).join(", ")
    } }`;
  }
  throw new TypeError(
    "testTool/testSession: schemas may hold only JSON strings, numbers, booleans, arrays and objects",
  );
}

function toolTable(name: string, t: ToolSpec, session?: string): string {
  const fields: Record<string, unknown> = {
    session,
    description: `The ${name} tool under test.`,
    protocol: t.protocol ?? "json",
    command: t.command,
    args: t.args ?? [],
    input_schema: t.inputSchema ?? { type: "object" },
    timeout_ms: t.timeoutMs,
  };
  const lines = Object.entries(fields).filter(([, v]) => v !== undefined).map(([k, v]) =>
    `${k} = ${tomlValue(v)}`
  );
  return `\n[artifacts.app.views.agent_tools.${name}]\n${lines.join("\n")}\n`;
}

const HEAD = `[artifacts.app]\npath = "app"\n\n[artifacts.app.evals.review]\naudience = "agent"\n`;

async function openTemp(
  toml: string,
  files: Record<string, TestFile>,
): Promise<{ root: string; reg: Registry }> {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "toolhost-kit-")));
  try {
    mkdirSync(join(root, "app"));
    for (const [rel, f] of Object.entries(files)) {
      const path = join(root, "app", rel);
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, typeof f === "string" ? f : f.text);
      if (typeof f !== "string" && f.mode !== undefined) chmodSync(path, f.mode);
    }
    writeFileSync(join(root, "toolhost.toml"), toml);
    const reg = await Registry.open(await loadWorkspace(root), "app/review", {
      stateDir: join(root, ".state"), // the environment defaults to this process's
    });
    return { root, reg };
  } catch (e) {
    rmSync(root, { recursive: true, force: true });
    throw e;
  }
}

function closer(root: string, reg: Registry, checkState: boolean): () => Promise<void> {
  let done: Promise<void> | undefined;
  return () => (done ??= (async () => {
    try {
      await reg.close();
      const left = existsSync(sessionsRoot(reg.stateDir))
        ? readdirSync(sessionsRoot(reg.stateDir))
        : [];
      if (checkState && left.length > 0) throw new Error("a session directory was left behind");
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  })());
}

/**
 * Declare one command tool in a temporary workspace and open it through the registry.
 *
 * @example
 * ```ts
 * import { testTool } from "./testing.ts";
 * await using tool = await testTool({ command: "node", args: ["/abs/path/stats.mjs"] });
 * const result = await tool.call({ file: "README.md" });
 * console.log(result.isError);
 * ```
 */
export async function testTool(options: TestToolOptions): Promise<ToolUnderTest> {
  const { root, reg } = await openTemp(HEAD + toolTable("tool", options), options.files ?? {});
  const close = closer(root, reg, false);
  return {
    root,
    call: (args = {}, o = {}) => reg.call("tool_app", args, o),
    close,
    [Symbol.asyncDispose]: close,
  };
}

function sessionToml(o: TestSessionOptions): { toml: string; files: Record<string, TestFile> } {
  let start = o.start;
  let stop = o.stop;
  let tools = o.tools ?? {};
  const files: Record<string, TestFile> = { ...o.files };
  if (o.harness !== undefined) {
    const harness = o.harness;
    const run = (role: string) => {
      const c = viaLauncher(harnessCommand(harness, role));
      if (c.launcher !== undefined) files[LAUNCHER_PATH] = { text: c.launcher, mode: 0o755 };
      return { command: c.command, args: c.args };
    };
    start = run("start");
    stop = run("stop");
    tools = {};
    for (const [name, schema] of Object.entries(o.actions ?? {})) {
      tools[name] = { ...run(name), protocol: "json", inputSchema: { type: "object", ...schema } };
    }
  }
  if (start === undefined || stop === undefined) {
    throw new TypeError("testSession needs `harness`, or `start` and `stop`");
  }
  const cmd = (c: SessionCommandSpec) =>
    `{ command = ${tomlValue(c.command)}, args = ${tomlValue(c.args)} }`;
  const body = Object.entries(tools).map(([name, t]) => toolTable(name, t, "main")).join("");
  const toml = `${HEAD}\n[artifacts.app.views.agent_sessions.main]\nstart = ${cmd(start)}\nstop = ${
    cmd(stop)
  }\n${body}`;
  return { toml, files };
}

/**
 * Declare a tool session (`main`) and its bound tools in a temporary workspace, open it
 * through the registry, and let the test call the tools; the session starts lazily on the
 * first call and `close()` stops it through the real supervisor.
 *
 * @example
 * ```ts
 * import { testSession } from "./testing.ts";
 * await using s = await testSession({
 *   harness: "/abs/path/app_harness.mjs",
 *   actions: { counter_add: { properties: { by: { type: "integer" } } }, counter_get: {} },
 * });
 * await s.call("counter_add", { by: 2 });
 * console.log((await s.call("counter_get")).content);
 * ```
 */
export async function testSession(options: TestSessionOptions): Promise<SessionUnderTest> {
  const { toml, files } = sessionToml(options);
  const { root, reg } = await openTemp(toml, files);
  if (options.stopTimeoutMs !== undefined) {
    reg.sessions.configure({ stopTimeoutMs: options.stopTimeoutMs });
  }
  const close = closer(root, reg, true);
  return {
    root,
    get sessionDir() {
      return reg.sessions.sessions()[0]?.sessionDir;
    },
    call: (name, args = {}, o = {}) => reg.call(`${name}_app`, args, o),
    close,
    [Symbol.asyncDispose]: close,
  };
}
