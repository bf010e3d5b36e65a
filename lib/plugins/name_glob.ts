/**
 * Tool-name globs for hook matchers and policy rules: `*` matches any run of characters,
 * `?` one character; everything else is literal. Tool names have no `/`, so there is no
 * path semantics. Compiled once to a linear-time matcher (no backtracking explosion).
 *
 * @module
 */

/** Characters a tool-name glob may contain. */
export const NAME_GLOB_PATTERN = /^[a-z0-9_*?-]{1,128}$/;

/**
 * Is `glob` a well-formed tool-name glob?
 *
 * @example
 * ```ts
 * import { isNameGlob } from "./name_glob.ts";
 * isNameGlob("shell_exec_*"); // true
 * isNameGlob("Shell"); // false
 * ```
 */
export function isNameGlob(glob: string): boolean {
  return NAME_GLOB_PATTERN.test(glob);
}

/**
 * Does `name` match `glob`? Greedy two-pointer matching: O(|name| × |glob|) at worst.
 *
 * @example
 * ```ts
 * import { matchNameGlob } from "./name_glob.ts";
 * matchNameGlob("files_*", "files_write_app"); // true
 * matchNameGlob("read_?pp", "read_app"); // true
 * ```
 */
export function matchNameGlob(glob: string, name: string): boolean {
  let g = 0;
  let n = 0;
  let star = -1;
  let mark = 0;
  while (n < name.length) {
    if (g < glob.length && (glob[g] === "?" || glob[g] === name[n])) {
      g++;
      n++;
    } else if (g < glob.length && glob[g] === "*") {
      star = g++;
      mark = n;
    } else if (star >= 0) {
      g = star + 1;
      n = ++mark;
    } else return false;
  }
  while (g < glob.length && glob[g] === "*") g++;
  return g === glob.length;
}

/**
 * Does `name` match any of `globs`? An absent list matches every name.
 *
 * @example
 * ```ts
 * import { matchesAny } from "./name_glob.ts";
 * matchesAny(undefined, "read_app"); // true
 * matchesAny(["files_*"], "read_app"); // false
 * ```
 */
export function matchesAny(globs: readonly string[] | undefined, name: string): boolean {
  return globs === undefined || globs.some((g) => matchNameGlob(g, name));
}
