/**
 * Comparing what an eval exposes and runs with its `toolhost.lock` entry. A difference
 * is a {@link Drift}: which subject (a tool, a session command, an extension or one of
 * its tools), which field, and whether it was added, removed or changed — names and
 * fields only, never contents.
 *
 * @module
 */

import { canonicalJson } from "./canonical.ts";
import { showPath } from "../paths/show_path.ts";
import { showKeyPath } from "../workspace/problems.ts";
import { own } from "./own.ts";
import type {
  EvalLock,
  ExtensionLock,
  ExtensionToolLock,
  PathPins,
  ToolLock,
} from "./lock_file.ts";

/** One difference from the lock. */
export interface Drift {
  /** What differs: `tool`, `session`, `extension`, `extension-tool` or `eval`. */
  kind: "tool" | "session" | "extension" | "extension-tool" | "eval";
  /** Its name (published tool name, session key, extension name, `EXT/tool`, eval id). */
  name: string;
  /** Which field: `entry` (the whole entry), `description`, `inputSchema`, `executionPaths`, `command`, `args`. */
  field:
    | "entry"
    | "description"
    | "inputSchema"
    | "executionPaths"
    | "command"
    | "args"
    | "url"
    | "filters";
  /** How. */
  change: "added" | "removed" | "changed";
  /** The declared execution path, for `executionPaths`. */
  path?: string;
  /** The eval, when differences of several evals are listed together. */
  evalId?: string;
}

/** The registry's own part of an eval (extensions are compared separately). */
export type RegistryPart = Pick<EvalLock, "tools" | "sessions">;

function pinDrift(kind: Drift["kind"], name: string, locked: PathPins, now: PathPins): Drift[] {
  const out: Drift[] = [];
  for (const path of new Set([...Object.keys(locked), ...Object.keys(now)])) {
    const l = own(locked, path);
    const n = own(now, path);
    const change = l === undefined ? "added" : n === undefined ? "removed" : "changed";
    if (change === "changed" && l === n) continue;
    out.push({ kind, name, field: "executionPaths", change, path });
  }
  return out;
}

function toolDrift(kind: Drift["kind"], name: string, l: ExtensionToolLock, n: ExtensionToolLock) {
  const out: Drift[] = [];
  if (l.description !== n.description) {
    out.push({ kind, name, field: "description", change: "changed" });
  }
  if (l.inputSchema !== n.inputSchema) {
    out.push({ kind, name, field: "inputSchema", change: "changed" });
  }
  return out;
}

function entryDrift<T>(
  kind: Drift["kind"],
  locked: Record<string, T>,
  now: Record<string, T>,
  inner: (name: string, l: T, n: T) => Drift[],
): Drift[] {
  const out: Drift[] = [];
  for (const name of [...new Set([...Object.keys(locked), ...Object.keys(now)])].sort()) {
    const l = own(locked, name);
    const n = own(now, name);
    if (n === undefined) out.push({ kind, name, field: "entry", change: "removed" });
    else if (l === undefined) out.push({ kind, name, field: "entry", change: "added" });
    else out.push(...inner(name, l, n));
  }
  return out;
}

/**
 * Differences between the locked and the actual registry part of an eval.
 *
 * @example
 * ```ts
 * import { compareRegistryPart } from "./compare.ts";
 * compareRegistryPart({ tools: {}, sessions: {} }, { tools: {}, sessions: {} }); // []
 * ```
 */
export function compareRegistryPart(locked: RegistryPart, now: RegistryPart): Drift[] {
  return [
    ...entryDrift("tool", locked.tools, now.tools, (name, l: ToolLock, n: ToolLock) => [
      ...toolDrift("tool", name, l, n),
      ...pinDrift("tool", name, l.executionPaths, n.executionPaths),
    ]),
    ...entryDrift(
      "session",
      locked.sessions,
      now.sessions,
      (name, l, n) => pinDrift("session", name, l, n),
    ),
  ];
}

/**
 * Differences in an extension's declaration (command, args, url, tool filters) from its lock entry, or
 * one `added` drift when the lock has no entry for it. Non-empty means: do not start it.
 *
 * @example
 * ```ts
 * import { compareExtensionDecl } from "./compare.ts";
 * compareExtensionDecl("fx", undefined, { command: "x", args: [] })[0].change; // "added"
 * ```
 */
export function compareExtensionDecl(
  name: string,
  locked: ExtensionLock | undefined,
  decl: {
    command: string;
    args: readonly string[];
    remote?: { url: string };
    enabledTools?: readonly string[];
    disabledTools?: readonly string[];
  },
): Drift[] {
  if (locked === undefined) return [{ kind: "extension", name, field: "entry", change: "added" }];
  const out: Drift[] = [];
  if (locked.command !== decl.command) {
    out.push({ kind: "extension", name, field: "command", change: "changed" });
  }
  if (canonicalJson(locked.args) !== canonicalJson(decl.args)) {
    out.push({ kind: "extension", name, field: "args", change: "changed" });
  }
  if ((locked.url ?? "") !== (decl.remote?.url ?? "")) {
    out.push({ kind: "extension", name, field: "url", change: "changed" });
  }
  const filters = (e?: readonly string[], d?: readonly string[]) =>
    canonicalJson([e ?? null, d ?? null]);
  if (
    filters(locked.enabled_tools, locked.disabled_tools) !==
      filters(decl.enabledTools, decl.disabledTools)
  ) {
    out.push({ kind: "extension", name, field: "filters", change: "changed" });
  }
  return out;
}

/**
 * Differences between the tools an extension listed and its lock entry; names are
 * `EXT/tool`.
 *
 * @example
 * ```ts
 * import { compareExtensionTools } from "./compare.ts";
 * compareExtensionTools("fx", {}, {}); // []
 * ```
 */
export function compareExtensionTools(
  ext: string,
  locked: Record<string, ExtensionToolLock>,
  now: Record<string, ExtensionToolLock>,
): Drift[] {
  const prefix = (r: Record<string, ExtensionToolLock>) =>
    Object.fromEntries(Object.entries(r).map(([k, v]) => [`${ext}/${k}`, v]));
  return entryDrift(
    "extension-tool",
    prefix(locked),
    prefix(now),
    (name, l, n) => toolDrift("extension-tool", name, l, n),
  );
}

const FIELD_TEXT: Record<Drift["field"], string> = {
  entry: "",
  description: "description",
  inputSchema: "input schema",
  executionPaths: "execution path",
  command: "command",
  args: "args",
  url: "url",
  filters: "enabled_tools/disabled_tools",
};

/**
 * One line for a drift, e.g. ``tool `stats_app`: execution path `app/tools/stats.mjs` changed``.
 * Names and paths (which a tampered lock may carry) are escaped and cut as by `showPath`.
 *
 * @example
 * ```ts
 * import { describeDrift } from "./compare.ts";
 * describeDrift({ kind: "tool", name: "x_app", field: "description", change: "changed" });
 * // "tool `x_app`: description changed"
 * ```
 */
export function describeDrift(d: Drift): string {
  const what = d.kind === "extension-tool" ? "extension tool" : d.kind;
  const evalId = d.evalId === undefined ? "" : `${showKeyPath(d.evalId)}: `;
  const subject = `${evalId}${what} ${showPath(d.name)}`;
  if (d.field === "entry") {
    return d.change === "added"
      ? `${subject}: not in toolhost.lock`
      : `${subject}: in toolhost.lock but no longer present`;
  }
  const path = d.path === undefined ? "" : ` ${showPath(d.path)}`;
  return `${subject}: ${FIELD_TEXT[d.field]}${path} ${d.change}`;
}
