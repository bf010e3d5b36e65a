/**
 * Typed readers for manifest fields that record a problem (with its key path) instead of
 * throwing, so one pass reports every mistake.
 *
 * @module
 */

import type { ArgvElement } from "./types.ts";
import { isTable, type Problems, type Table } from "./problems.ts";
import { isValidName } from "./names.ts";
import { relPathProblem } from "./rel_path.ts";
import { LIMITS } from "../results/types.ts";
import { leavesWorkspace } from "./program_path.ts";

/**
 * Read a string field; records a problem when present with another type or when
 * required and missing.
 *
 * @example
 * ```ts
 * import { Problems } from "./problems.ts";
 * import { readString } from "./fields.ts";
 * readString(new Problems("t", ""), "a", { path: "x" }, "path", true); // "x"
 * ```
 */
export function readString(
  p: Problems,
  at: string,
  t: Table,
  key: string,
  required: boolean,
): string | undefined {
  const v = t[key];
  if (v === undefined) {
    if (required) p.add(`${at}.${key}`, "is required (a string)");
    return undefined;
  }
  if (typeof v !== "string") {
    p.add(`${at}.${key}`, `must be a string, not ${typeName(v)}`);
    return undefined;
  }
  return v;
}

/**
 * Read an array of strings.
 *
 * @example
 * ```ts
 * import { Problems } from "./problems.ts";
 * import { readStringArray } from "./fields.ts";
 * readStringArray(new Problems("t", ""), "a", { refs: ["x"] }, "refs", false); // ["x"]
 * ```
 */
export function readStringArray(
  p: Problems,
  at: string,
  t: Table,
  key: string,
  required: boolean,
): string[] | undefined {
  const v = t[key];
  if (v === undefined) {
    if (required) p.add(`${at}.${key}`, "is required (an array of strings)");
    return undefined;
  }
  if (!Array.isArray(v) || v.some((e) => typeof e !== "string")) {
    p.add(`${at}.${key}`, "must be an array of strings");
    return undefined;
  }
  return v as string[];
}

/**
 * Read an argv array whose elements are strings or `{ artifact = "ID" }` tables.
 *
 * @example
 * ```ts
 * import { Problems } from "./problems.ts";
 * import { readArgv } from "./fields.ts";
 * readArgv(new Problems("t", ""), "a", { args: ["x", { artifact: "app" }] }, true);
 * ```
 */
export function readArgv(
  p: Problems,
  at: string,
  t: Table,
  allowArtifacts: boolean,
): ArgvElement[] | undefined {
  const v = t.args;
  if (v === undefined) {
    p.add(`${at}.args`, "is required (an array; use `args = []` for none)");
    return undefined;
  }
  if (!Array.isArray(v)) {
    p.add(`${at}.args`, "must be an array");
    return undefined;
  }
  const out: ArgvElement[] = [];
  v.forEach((e, i) => {
    if (typeof e === "string") {
      if (e.includes("\0")) p.add(`${at}.args[${i}]`, "must not contain NUL");
      else out.push(e);
    } else if (isTable(e) && Object.keys(e).length === 1 && typeof e.artifact === "string") {
      if (!allowArtifacts) {
        p.add(
          `${at}.args[${i}]`,
          "`{ artifact = ... }` operands are only allowed in json-protocol and session argv",
        );
      } else out.push({ artifact: e.artifact });
    } else {
      p.add(`${at}.args[${i}]`, 'must be a string or `{ artifact = "ID" }`');
    }
  });
  return out;
}

/**
 * Read `execution_paths`: at most 64 unique workspace-relative paths.
 *
 * @example
 * ```ts
 * import { Problems } from "./problems.ts";
 * import { readExecutionPaths } from "./fields.ts";
 * readExecutionPaths(new Problems("t", ""), "a", { execution_paths: ["tools/x"] }); // ["tools/x"]
 * ```
 */
export function readExecutionPaths(p: Problems, at: string, t: Table): string[] {
  const list = readStringArray(p, at, t, "execution_paths", false) ?? [];
  if (list.length > LIMITS.maxExecutionPaths) {
    p.add(
      `${at}.execution_paths`,
      `has ${list.length} entries; at most ${LIMITS.maxExecutionPaths} are allowed`,
    );
  }
  const seen = new Set<string>();
  list.forEach((e, i) => {
    const why = relPathProblem(e);
    if (why) p.add(`${at}.execution_paths[${i}]`, `must be a workspace-relative path: it ${why}`);
    if (seen.has(e)) p.add(`${at}.execution_paths[${i}]`, "duplicates an earlier entry");
    seen.add(e);
  });
  return list;
}

/**
 * Read workspace-relative `artifact_roots`.
 *
 * @example
 * ```ts
 * import { Problems } from "./problems.ts";
 * import { readRoots } from "./fields.ts";
 * readRoots(new Problems("t", ""), "a", { artifact_roots: ["out"] }); // ["out"]
 * ```
 */
export function readRoots(p: Problems, at: string, t: Table): string[] {
  const list = readStringArray(p, at, t, "artifact_roots", false) ?? [];
  list.forEach((e, i) => {
    const why = relPathProblem(e);
    if (why) p.add(`${at}.artifact_roots[${i}]`, `must be a workspace-relative folder: it ${why}`);
  });
  return list;
}

/**
 * Record a problem for each artifact root that leads out of the workspace `root` through
 * a symlink (roots are checked again when used).
 *
 * @example
 * ```ts
 * import { Problems } from "./problems.ts";
 * import { checkRootsInside } from "./fields.ts";
 * checkRootsInside(new Problems("t", ""), "/ws", ["out"], "artifacts.app");
 * ```
 */
export function checkRootsInside(
  p: Problems,
  root: string,
  roots: readonly string[],
  at: string,
): void {
  roots.forEach((r, i) => {
    if (leavesWorkspace(root, r)) {
      p.add(`${at}.artifact_roots[${i}]`, "resolves outside the workspace (a symlink)");
    }
  });
}

/**
 * Check a declared name (`[a-z0-9][a-z0-9_-]*`, at most 64 characters) and that its value
 * is a table; records the problem and returns undefined otherwise.
 *
 * @example
 * ```ts
 * import { Problems } from "./problems.ts";
 * import { readNamedTable } from "./fields.ts";
 * readNamedTable(new Problems("t", ""), "artifacts.App", "Artifact IDs", "App", {}); // undefined
 * ```
 */
export function readNamedTable(
  p: Problems,
  at: string,
  what: string,
  name: string,
  t: unknown,
): Table | undefined {
  if (!isValidName(name)) {
    p.add(at, `${what} must match [a-z0-9][a-z0-9_-]* and be at most 64 characters`);
    return undefined;
  }
  if (!isTable(t)) {
    p.add(at, `must be a table, not ${typeName(t)}`);
    return undefined;
  }
  return t;
}

/**
 * A short, value-free name of a TOML value's type.
 *
 * @example
 * ```ts
 * import { typeName } from "./fields.ts";
 * typeName([]); // "an array"
 * ```
 */
export function typeName(v: unknown): string {
  if (Array.isArray(v)) return "an array";
  if (v === null) return "null";
  if (v instanceof Date) return "a date";
  if (isTable(v)) return "a table";
  if (typeof v === "object") return "an inline value";
  return `a ${typeof v}`;
}

/**
 * Read `timeout_ms` (an integer from 1 to 2147483647); `fallback` when absent or invalid
 * (the problem is recorded at `<at>.timeout_ms`).
 *
 * @example
 * ```ts
 * import { Problems } from "./problems.ts";
 * import { readTimeoutMs } from "./fields.ts";
 * readTimeoutMs(new Problems("t", ""), "tool", 5000, 120000); // 5000
 * ```
 */
export function readTimeoutMs(p: Problems, at: string, v: unknown, fallback: number): number {
  if (v === undefined) return fallback;
  if (typeof v !== "number" || !Number.isInteger(v) || v < 1 || v > LIMITS.maxTimeoutMs) {
    p.add(`${at}.timeout_ms`, `must be an integer from 1 to ${LIMITS.maxTimeoutMs}`);
    return fallback;
  }
  return v;
}
