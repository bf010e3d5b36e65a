/**
 * Parse `views.agent_tools`, `views.human_tools` and `views.agent_sessions` of one
 * Artifact into declarations.
 *
 * @module
 */

import { BUILTIN_SPECS } from "../builtins/specs.ts";
import { checkFormatsKnown, SchemaCompileError } from "../schema/compile_schema.ts";
import type { SchemaHint } from "../schema/compile_hint.ts";
import { checkSchema } from "../schema/check_schema.ts";
import { LIMITS } from "../results/types.ts";
import { plainPlaceholders } from "../protocols/plain_argv.ts";
import { renderDescription } from "./description.ts";
import {
  readArgv,
  readExecutionPaths,
  readNamedTable,
  readRoots,
  readString,
  readStringArray,
  readTimeoutMs,
  typeName,
} from "./fields.ts";
import { checkKeys, isTable, mustBeOneOf, type Problems, suggest, type Table } from "./problems.ts";
import { pluginToolDecl, type PluginToolRef } from "./parse_plugins.ts";
import { readSuccessExitCodes } from "./exit_codes.ts";
import { schemaTypeHint } from "./schema_type_hint.ts";
import { readLimits, readToolOverflow, RESOURCE_LIMIT_KEYS } from "../limits/parse_limits.ts";
import { readDeclaredSandbox, SANDBOX_KEYS } from "../sandbox/policy.ts";
import { noteDeclaredSandbox } from "../sandbox/apply.ts";
import type {
  BuiltinName,
  BuiltinToolDecl,
  CommandToolDecl,
  SessionCommand,
  SessionDecl,
  ToolDecl,
} from "./types.ts";

const COMMAND_KEYS = [
  "description",
  "protocol",
  "command",
  "args",
  "input_schema",
  "timeout_ms",
  "session",
  "execution_paths",
  "artifact_roots",
  ...RESOURCE_LIMIT_KEYS,
  "overflow",
  "success_exit_codes",
  ...SANDBOX_KEYS,
];
const BUILTIN_KEYS = ["builtin", "args", "description"] as const;
const SESSION_KEYS = ["start", "stop", ...RESOURCE_LIMIT_KEYS, ...SANDBOX_KEYS];
const SESSION_COMMAND_KEYS = ["command", "args", "execution_paths"] as const;

/** Which view a tool table belongs to. */
export type ToolView = "agent_tools" | "human_tools";

/**
 * Parse one tool table. Returns undefined (after recording problems) when invalid.
 *
 * @example
 * ```ts
 * import { Problems } from "./problems.ts";
 * import { parseTool } from "./parse_views.ts";
 * const p = new Problems("toolhost.toml", "");
 * parseTool(p, "artifacts.app.views.agent_tools.read", "read", { builtin: "read" }, "app", "agent_tools");
 * ```
 */
export function parseTool(
  p: Problems,
  at: string,
  name: string,
  raw: unknown,
  artifactId: string,
  view: ToolView,
  pluginTools?: ReadonlyMap<string, PluginToolRef>,
): ToolDecl | undefined {
  const t = readNamedTable(p, at, "tool names", name, raw);
  if (!t) return undefined;
  if ("builtin" in t) return parseBuiltin(p, at, name, t, artifactId, view, pluginTools);
  return parseCommand(p, at, name, t, artifactId, view);
}

function describe(
  p: Problems,
  at: string,
  template: string | undefined,
  artifactId: string,
): string | undefined {
  if (template === undefined) return undefined;
  const r = renderDescription(template, artifactId);
  if (!r.ok) {
    p.add(`${at}.description`, r.reason);
    return undefined;
  }
  return template;
}

function parseBuiltin(
  p: Problems,
  at: string,
  name: string,
  t: Table,
  artifactId: string,
  view: ToolView,
  pluginTools?: ReadonlyMap<string, PluginToolRef>,
): BuiltinToolDecl | undefined {
  // `session` gets its own, clearer problem below rather than "unknown key" as well.
  checkKeys(p, at, t, [...BUILTIN_KEYS, "session", ...SANDBOX_KEYS]);
  if ("session" in t) p.add(`${at}.session`, "built-in tools cannot be bound to a session");
  const builtin = readString(p, at, t, "builtin", true);
  if (builtin === undefined) return undefined;
  // `builtin` may name a tool of an enabled plugin.
  const ref = Object.hasOwn(BUILTIN_SPECS, builtin) ? undefined : pluginTools?.get(builtin);
  if (ref) return pluginToolDecl(p, { at, name, t, artifactId, view, builtin, ref });
  if (!Object.hasOwn(BUILTIN_SPECS, builtin)) {
    const known = [...Object.keys(BUILTIN_SPECS), ...(pluginTools?.keys() ?? [])];
    const hint = suggest(builtin, known);
    p.add(
      `${at}.builtin`,
      `unknown built-in${hint ? ` (did you mean "${hint}"?)` : ""}; choose one of ${
        Object.keys(BUILTIN_SPECS).join(", ")
      }`,
    );
    return undefined;
  }
  const spec = BUILTIN_SPECS[builtin as BuiltinName];
  const args = readStringArray(p, at, t, "args", false);
  const argsOk = checkBuiltinArgs(p, `${at}.args`, spec.target, spec.fixedArgs, args);
  if (view === "human_tools" && args === undefined && spec.target !== "empty") {
    p.add(`${at}.args`, "human tools take no free arguments: give this built-in a fixed target");
  }
  const template = readString(p, at, t, "description", false);
  const description = template === undefined
    ? spec.description
    : describe(p, at, template, artifactId);
  const sandbox = readBuiltinSandbox(p, at, t, builtin);
  if (!argsOk || description === undefined) return undefined;
  const decl: BuiltinToolDecl = {
    type: "builtin",
    name,
    builtin: builtin as BuiltinName,
    args,
    description,
    keyPath: at,
  };
  return noteDeclaredSandbox(decl, sandbox);
}

function checkBuiltinArgs(
  p: Problems,
  at: string,
  target: string,
  [min, max]: [number, number],
  args: string[] | undefined,
): boolean {
  if (target === "model" && args !== undefined) {
    p.add(at, "this built-in takes the model's input and no fixed `args`");
    return false;
  }
  if (target === "fixed" && args === undefined) {
    p.add(at, `is required for this built-in (${min === max ? min : `${min}–${max}`} entries)`);
    return false;
  }
  if (target === "empty" && (args === undefined || args.length !== 0)) {
    p.add(at, "must be exactly `[]` for graph");
    return false;
  }
  if (args !== undefined && target !== "empty" && (args.length < min || args.length > max)) {
    p.add(at, `must have ${min === max ? min : `${min}–${max}`} entries, not ${args.length}`);
    return false;
  }
  return true;
}

function parseCommand(
  p: Problems,
  at: string,
  name: string,
  t: Table,
  artifactId: string,
  view: ToolView,
): CommandToolDecl | undefined {
  checkKeys(p, at, t, COMMAND_KEYS);
  const before = p.list.length;
  const description = describe(p, at, readString(p, at, t, "description", true), artifactId);
  const protocol = readString(p, at, t, "protocol", true);
  if (protocol !== undefined && protocol !== "json" && protocol !== "plain") {
    p.add(`${at}.protocol`, mustBeOneOf(protocol, ["json", "plain"]));
  }
  const command = readCommand(p, at, t);
  const args = readArgv(p, at, t, protocol === "json");
  const inputSchema = readSchema(p, at, t, view);
  const timeoutMs = readTimeoutMs(p, at, t.timeout_ms, LIMITS.defaultTimeoutMs);
  const session = readString(p, at, t, "session", false);
  if (session !== undefined && view === "human_tools") {
    p.add(`${at}.session`, "human tools cannot be bound to a session");
  }
  const executionPaths = readExecutionPaths(p, at, t);
  const artifactRoots = readRoots(p, at, t);
  if (protocol === "plain" && args && inputSchema) checkPlaceholders(p, at, args, inputSchema);
  const limits = readLimits(p, at, t);
  const overflow = readToolOverflow(p, at, t, protocol);
  const successExitCodes = readSuccessExitCodes(p, at, t, protocol);
  const sandbox = readDeclaredSandbox(p, at, t);
  if (p.list.length > before) return undefined;
  const decl: CommandToolDecl = {
    type: "command",
    name,
    description: description!,
    protocol: protocol as "json" | "plain",
    command: command!,
    args: args!,
    inputSchema: inputSchema!,
    timeoutMs,
    session,
    executionPaths,
    artifactRoots,
    keyPath: at,
    ...(limits ? { limits } : {}),
    ...(overflow ? { overflow } : {}),
    ...(successExitCodes ? { successExitCodes } : {}),
  };
  return noteDeclaredSandbox(decl, sandbox);
}

function readCommand(p: Problems, at: string, t: Table): string | undefined {
  const command = readString(p, at, t, "command", true);
  if (command === undefined) return undefined;
  if (command === "" || command.includes("\0")) {
    p.add(`${at}.command`, "must be a nonempty program name or relative path");
    return undefined;
  }
  if (command.startsWith("/")) {
    p.add(
      `${at}.command`,
      "must be a program name looked up on PATH or a path relative to the Artifact's folder",
    );
    return undefined;
  }
  return command;
}

function readSchema(
  p: Problems,
  at: string,
  t: Table,
  view: ToolView,
): Record<string, unknown> | undefined {
  const raw = t.input_schema;
  if (raw === undefined) return { type: "object", additionalProperties: false };
  try {
    checkSchema(raw); // compiled here only when compiling it could fail (see check_schema.ts)
    checkFormatsKnown(raw); // after checking: it walks a schema already bounded in depth
  } catch (e) {
    if (!(e instanceof SchemaCompileError)) throw e;
    const hint = schemaTypeHint(raw);
    if (hint !== undefined) p.add(`${at}.input_schema.${hint.keyPath}`, hint.message);
    else if (e.hint !== undefined) p.add(`${at}.input_schema`, compileHintMessage(e.hint));
    else p.add(`${at}.input_schema`, e.message);
    return undefined;
  }
  const schema = raw as Record<string, unknown>;
  if (view === "human_tools" && !isEmptyObjectSchema(schema)) {
    p.add(`${at}.input_schema`, "human tools admit only an empty object; remove input_schema");
    return undefined;
  }
  return schema;
}

/** A compile failure in words: where inside the schema, which rule, and what to do. */
function compileHintMessage(h: SchemaHint): string {
  const where = h.keyPath === "" ? "the schema itself" : `\`${h.keyPath}\``;
  return `the schema does not compile: ${where} ${h.rule}; fix that key of input_schema`;
}

function isEmptyObjectSchema(s: Record<string, unknown>): boolean {
  const keys = Object.keys(s).filter((k) => k !== "$schema" && k !== "description");
  return keys.length === 2 && s.type === "object" && s.additionalProperties === false;
}

function checkPlaceholders(
  p: Problems,
  at: string,
  args: readonly (string | { artifact: string })[],
  schema: Record<string, unknown>,
): void {
  const props = isTable(schema.properties) ? Object.keys(schema.properties) : [];
  args.forEach((a, i) => {
    if (typeof a !== "string") return;
    const r = plainPlaceholders([a]);
    if (!Array.isArray(r)) {
      p.add(`${at}.args[${i}]`, r.message);
      return;
    }
    for (const name of r) {
      if (!props.includes(name)) {
        const hint = suggest(name, props);
        p.add(
          `${at}.args[${i}]`,
          `placeholder \`{${name}}\` is not a top-level property of input_schema` +
            (hint === undefined ? "" : ` (did you mean \`{${hint}}\`?)`) +
            `; its properties: ${props.join(", ") || "(none)"}`,
        );
      }
    }
  });
}

/**
 * Parse one `views.agent_sessions.NAME` table.
 *
 * @example
 * ```ts
 * import { Problems } from "./problems.ts";
 * import { parseSession } from "./parse_views.ts";
 * const p = new Problems("toolhost.toml", "");
 * parseSession(p, "artifacts.app.views.agent_sessions.app", "app", {
 *   start: { command: "tools/h", args: ["start"] },
 *   stop: { command: "tools/h", args: ["stop"] },
 * });
 * ```
 */
export function parseSession(
  p: Problems,
  at: string,
  name: string,
  raw: unknown,
): SessionDecl | undefined {
  const t = readNamedTable(p, at, "session names", name, raw);
  if (!t) return undefined;
  checkKeys(p, at, t, SESSION_KEYS);
  const start = parseSessionCommand(p, `${at}.start`, t.start);
  const stop = parseSessionCommand(p, `${at}.stop`, t.stop);
  const limits = readLimits(p, at, t);
  const sandbox = readDeclaredSandbox(p, at, t);
  if (!start || !stop) return undefined;
  const decl: SessionDecl = { name, start, stop, keyPath: at, ...(limits ? { limits } : {}) };
  return noteDeclaredSandbox(decl, sandbox);
}

function parseSessionCommand(p: Problems, at: string, t: unknown): SessionCommand | undefined {
  if (t === undefined) {
    p.add(at, "is required: `{ command = ..., args = [...] }`");
    return undefined;
  }
  if (!isTable(t)) {
    p.add(at, `must be a table, not ${typeName(t)}`);
    return undefined;
  }
  checkKeys(p, at, t, SESSION_COMMAND_KEYS);
  const before = p.list.length;
  const command = readCommand(p, at, t);
  const args = readArgv(p, at, t, true);
  const executionPaths = readExecutionPaths(p, at, t);
  if (p.list.length > before) return undefined;
  return { command: command!, args: args!, executionPaths, keyPath: at };
}

/** Built-ins that start processes, and so take the confinement keys. */
export const PROCESS_BUILTINS: readonly string[] = ["shell_exec", "git_status", "git_diff"];

function readBuiltinSandbox(p: Problems, at: string, t: Table, builtin: string) {
  const own = readDeclaredSandbox(p, at, t);
  if (own !== undefined && !PROCESS_BUILTINS.includes(builtin)) {
    p.add(
      `${at}.${SANDBOX_KEYS.find((k) => k in t)}`,
      `applies only to built-ins that start processes (${
        PROCESS_BUILTINS.join(", ")
      }); the others run inside toolhost's own path sandbox`,
    );
    return undefined;
  }
  return own;
}
