/**
 * Lexical checks for workspace-relative paths in declarations.
 *
 * @module
 */

/**
 * Why a workspace-relative path is not acceptable, or `undefined` when it is.
 * Accepts POSIX relative paths without empty, `.` or `..` components, controls,
 * backslashes or colons.
 *
 * @example
 * ```ts
 * import { relPathProblem } from "./rel_path.ts";
 * relPathProblem("app/rules"); // undefined
 * relPathProblem("../x"); // "must not contain `.` or `..` components"
 * ```
 */
export function relPathProblem(p: string): string | undefined {
  if (p.length === 0) return "must not be empty";
  if (p.length > 4096) return "must be at most 4096 characters";
  if (p.startsWith("/")) return "must be relative to the workspace root, not absolute";
  // deno-lint-ignore no-control-regex
  if (/[\x00-\x1f\x7f]/.test(p)) return "must not contain control characters";
  if (p.includes("\\")) return "must use `/`, not backslashes";
  if (p.includes(":")) return "must not contain colons";
  const parts = p.split("/");
  if (parts.some((c) => c === "")) {
    return "must not contain empty components (`//` or a trailing `/`)";
  }
  if (parts.some((c) => c === "." || c === "..")) return "must not contain `.` or `..` components";
  return undefined;
}
