/**
 * Logical paths: the relative, slash-separated paths the model gives built-in tools.
 * They never reach the filesystem as strings; they are split into checked components
 * that the sandbox opens one by one.
 *
 * @module
 */

import { PathError } from "../errors/errors.ts";

/** Longest logical path, in UTF-16 code units. */
export const MAX_LOGICAL_PATH_UNITS = 4096;

/** Options of {@linkcode validateLogicalPath}. */
export interface LogicalPathOptions {
  /** Accept the lone `.` (meaning the root). Default false. */
  allowDotRoot?: boolean;
  /** What the value is called in messages. Default `path`. */
  label?: string;
}

/** True for ASCII control characters (0x00–0x1F and 0x7F). */
function hasControl(p: string): boolean {
  for (let i = 0; i < p.length; i++) {
    const c = p.charCodeAt(i);
    if (c < 0x20 || c === 0x7f) return true;
  }
  return false;
}

/**
 * Check a logical path and split it into components. The lone `.` (only when
 * `allowDotRoot`) yields no components, meaning the root. Messages never quote the path.
 *
 * Rejected: non-strings, empty paths, more than 4096 UTF-16 code units, ASCII control
 * characters, backslashes, colons, absolute paths, and empty, `.` or `..` components.
 *
 * @throws {PathError} when the path breaks a rule.
 * @example
 * ```ts
 * import { validateLogicalPath } from "./logical.ts";
 * validateLogicalPath("rules/requirements.md"); // ["rules", "requirements.md"]
 * validateLogicalPath(".", { allowDotRoot: true }); // []
 * ```
 */
export function validateLogicalPath(p: unknown, options: LogicalPathOptions = {}): string[] {
  const label = options.label ?? "path";
  if (typeof p !== "string") throw new PathError(`The ${label} must be a string.`);
  if (p.length === 0) throw new PathError(`The ${label} is empty; give a relative path.`);
  if (p.length > MAX_LOGICAL_PATH_UNITS) {
    throw new PathError(`The ${label} is longer than 4096 UTF-16 code units.`);
  }
  if (hasControl(p)) throw new PathError(`The ${label} contains an ASCII control character.`);
  if (p.includes("\\")) {
    throw new PathError(`The ${label} contains a backslash; use \`/\` between components.`);
  }
  if (p.includes(":")) throw new PathError(`The ${label} contains a colon, which is not allowed.`);
  if (p.startsWith("/")) {
    throw new PathError(`The ${label} is absolute; give a path relative to the Artifact.`);
  }
  if (p === ".") {
    if (options.allowDotRoot) return [];
    throw new PathError(`The ${label} \`.\` is not allowed here; name a file.`);
  }
  const parts = p.split("/");
  for (const part of parts) {
    if (part === "") {
      throw new PathError(`The ${label} has an empty component (a doubled or trailing \`/\`).`);
    }
    if (part === "." || part === "..") {
      throw new PathError(`The ${label} has a \`${part}\` component, which is not allowed.`);
    }
  }
  return parts;
}

/**
 * Join logical components back into a logical path (`.` for none).
 *
 * @example
 * ```ts
 * import { joinLogical } from "./logical.ts";
 * joinLogical(["a", "b.txt"]); // "a/b.txt"
 * joinLogical([]); // "."
 * ```
 */
export function joinLogical(components: readonly string[]): string {
  return components.length === 0 ? "." : components.join("/");
}

/**
 * Prefix a relative logical path with a base path (`.` or empty means none).
 *
 * @example
 * ```ts
 * import { childLogical } from "./logical.ts";
 * childLogical("src", "a.ts"); // "src/a.ts"
 * childLogical(".", "a.ts"); // "a.ts"
 * ```
 */
export function childLogical(base: string, rel: string): string {
  return base === "." || base === "" ? rel : `${base}/${rel}`;
}
