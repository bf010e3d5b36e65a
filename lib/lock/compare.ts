/**
 * Comparing what an eval exposes and runs with its `toolhost.lock` entry. A difference
 * is a {@link Drift}: which subject (the eval, a tool, a session, an extension or one of
 * its tools), which field (and which declaration key, program role or path), and whether
 * it was added, removed or changed — names and fields only, never contents.
 *
 * @module
 */

import { canonicalJson } from "./canonical.ts";
import { showPath } from "../paths/show_path.ts";
import { showKeyPath } from "../workspace/problems.ts";
import { own } from "./own.ts";
import type { Declaration } from "./declaration.ts";
import type {
  EvalLock,
  ExtensionLock,
  ExtensionToolLock,
  PathPins,
  ProgramPins,
  SessionLock,
  ToolLock,
} from "./lock_file.ts";

/** Which field of an entry differs. */
export type DriftField =
  | "entry"
  | "description"
  | "inputSchema"
  | "executionPaths"
  | "declaration"
  | "program";

/** One difference from the lock. */
export interface Drift {
  /** What differs: `tool`, `session`, `extension`, `extension-tool` or `eval`. */
  kind: "tool" | "session" | "extension" | "extension-tool" | "eval";
  /** Its name (published tool name, session key, extension name, `EXT/tool`, eval id). */
  name: string;
  /** Which field: `entry` (the whole entry), `description`, `inputSchema`, `executionPaths`, `declaration`, `program`. */
  field: DriftField;
  /** How. */
  change: "added" | "removed" | "changed";
  /** The declared execution path (`executionPaths`) or the program's path (`program`). */
  path?: string;
  /** The declaration key (`declaration`) or the program's role (`program`). */
  key?: string;
  /** The eval, when differences of several evals are listed together. */
  evalId?: string;
}

/** The registry's own part of an eval (extensions are compared separately). */
export type RegistryPart = Pick<EvalLock, "declaration" | "programs" | "tools" | "sessions">;

type Subject = Pick<Drift, "kind" | "name">;

function changeOf(l: unknown, n: unknown): Drift["change"] {
  return l === undefined ? "added" : n === undefined ? "removed" : "changed";
}

function pinDrift(s: Subject, locked: PathPins, now: PathPins, prefix = ""): Drift[] {
  const out: Drift[] = [];
  for (const path of new Set([...Object.keys(locked), ...Object.keys(now)])) {
    const l = own(locked, path);
    const n = own(now, path);
    if (l === n) continue;
    out.push({ ...s, field: "executionPaths", change: changeOf(l, n), path, key: prefix });
  }
  return out;
}

/**
 * Differences between two canonical declarations, one per top-level key.
 *
 * @example
 * ```ts
 * import { declarationDrift } from "./compare.ts";
 * declarationDrift({ kind: "tool", name: "x" }, { args: ["a"] }, { args: ["b"] })[0].key; // "args"
 * ```
 */
export function declarationDrift(s: Subject, locked: Declaration, now: Declaration): Drift[] {
  const out: Drift[] = [];
  for (const key of [...new Set([...Object.keys(locked), ...Object.keys(now)])].sort()) {
    const l = own(locked, key);
    const n = own(now, key);
    if (canonicalJson(l) === canonicalJson(n)) continue;
    out.push({ ...s, field: "declaration", change: changeOf(l, n), key });
  }
  return out;
}

/**
 * Differences between two sets of program pins (by role).
 *
 * @example
 * ```ts
 * import { programDrift } from "./compare.ts";
 * programDrift({ kind: "tool", name: "x" }, {}, {}); // []
 * ```
 */
export function programDrift(s: Subject, locked: ProgramPins, now: ProgramPins): Drift[] {
  const out: Drift[] = [];
  for (const key of [...new Set([...Object.keys(locked), ...Object.keys(now)])].sort()) {
    const l = own(locked, key);
    const n = own(now, key);
    if (l !== undefined && n !== undefined && l.path === n.path && l.sha256 === n.sha256) continue;
    out.push({ ...s, field: "program", change: changeOf(l, n), key, path: (n ?? l)!.path });
  }
  return out;
}

function toolDrift(s: Subject, l: ExtensionToolLock, n: ExtensionToolLock): Drift[] {
  const out: Drift[] = [];
  if (l.description !== n.description) out.push({ ...s, field: "description", change: "changed" });
  if (l.inputSchema !== n.inputSchema) out.push({ ...s, field: "inputSchema", change: "changed" });
  return out;
}

function entryDrift<T>(
  kind: Drift["kind"],
  locked: Record<string, T>,
  now: Record<string, T>,
  inner: (s: Subject, l: T, n: T) => Drift[],
): Drift[] {
  const out: Drift[] = [];
  for (const name of [...new Set([...Object.keys(locked), ...Object.keys(now)])].sort()) {
    const l = own(locked, name);
    const n = own(now, name);
    if (n === undefined) out.push({ kind, name, field: "entry", change: "removed" });
    else if (l === undefined) out.push({ kind, name, field: "entry", change: "added" });
    else out.push(...inner({ kind, name }, l, n));
  }
  return out;
}

function sessionDrift(s: Subject, l: SessionLock, n: SessionLock): Drift[] {
  return [
    ...declarationDrift(s, l.declaration, n.declaration),
    ...pinDrift(s, l.executionPaths.start, n.executionPaths.start, "start"),
    ...pinDrift(s, l.executionPaths.stop, n.executionPaths.stop, "stop"),
    ...programDrift(s, l.programs, n.programs),
  ];
}

/**
 * Differences between the locked and the actual registry part of an eval.
 *
 * @example
 * ```ts
 * import { compareRegistryPart } from "./compare.ts";
 * const part = { declaration: {}, programs: {}, tools: {}, sessions: {} };
 * compareRegistryPart(part, part); // []
 * ```
 */
export function compareRegistryPart(locked: RegistryPart, now: RegistryPart): Drift[] {
  return [
    ...declarationDrift({ kind: "eval", name: "" }, locked.declaration, now.declaration),
    ...programDrift({ kind: "eval", name: "" }, locked.programs, now.programs),
    ...entryDrift("tool", locked.tools, now.tools, (s, l: ToolLock, n: ToolLock) => [
      ...toolDrift(s, l, n),
      ...declarationDrift(s, l.declaration, n.declaration),
      ...pinDrift(s, l.executionPaths, n.executionPaths),
      ...programDrift(s, l.programs, n.programs),
    ]),
    ...entryDrift("session", locked.sessions, now.sessions, sessionDrift),
  ];
}

/**
 * What an extension is before it is started: its declaration, programs and the pins of
 * its execution paths.
 */
export type ExtensionDeclPart = Pick<ExtensionLock, "declaration" | "programs" | "executionPaths">;

/**
 * Differences in an extension's declaration, programs and execution-path pins from its
 * lock entry, or one `added` drift when the lock has no entry for it. Non-empty means: do
 * not start it.
 *
 * @example
 * ```ts
 * import { compareExtensionDecl } from "./compare.ts";
 * compareExtensionDecl("fx", undefined, { declaration: {}, programs: {} })[0].change; // "added"
 * ```
 */
export function compareExtensionDecl(
  name: string,
  locked: ExtensionDeclPart | undefined,
  now: ExtensionDeclPart,
): Drift[] {
  if (locked === undefined) return [{ kind: "extension", name, field: "entry", change: "added" }];
  const s: Subject = { kind: "extension", name };
  return [
    ...declarationDrift(s, locked.declaration, now.declaration),
    ...programDrift(s, locked.programs, now.programs),
    ...pinDrift(s, locked.executionPaths ?? {}, now.executionPaths ?? {}),
  ];
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
  return entryDrift("extension-tool", prefix(locked), prefix(now), toolDrift);
}

function fieldText(d: Drift): string {
  const key = d.key === undefined || d.key === "" ? "" : ` ${showPath(d.key)}`;
  const path = d.path === undefined ? "" : ` ${showPath(d.path)}`;
  switch (d.field) {
    case "description":
      return "description";
    case "inputSchema":
      return "input schema";
    case "executionPaths":
      return `${d.key === "start" || d.key === "stop" ? `${d.key} ` : ""}execution path${path}`;
    case "declaration":
      return `declaration${key}`;
    case "program":
      return `program${key}${path}`;
    default:
      return "";
  }
}

/**
 * One line for a drift, e.g. ``tool `stats_app`: execution path `app/tools/stats.mjs` changed``
 * or ``tool `search_app`: declaration `args` changed``. Names, keys and paths (which a
 * tampered lock may carry) are escaped and cut as by `showPath`.
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
  const subject = d.kind === "eval" && d.name === ""
    ? `${evalId}eval`
    : `${evalId}${what} ${showPath(d.name)}`;
  if (d.field === "entry") {
    return d.change === "added"
      ? `${subject}: not in toolhost.lock`
      : `${subject}: in toolhost.lock but no longer present`;
  }
  return `${subject}: ${fieldText(d)} ${d.change}`;
}
