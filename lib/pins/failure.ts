/**
 * Value-free failure messages for pinning: they name the declared (logical) path and the
 * reason, never file contents or physical paths.
 *
 * @module
 */

import { PreparationFailed } from "../errors/errors.ts";

const MAX_QUOTED = 200;

/**
 * Quote a logical path for a message: JSON-escaped and bounded.
 *
 * @example
 * ```ts
 * import { quotePath } from "./failure.ts";
 * quotePath("tools/run"); // "\"tools/run\""
 * ```
 */
export function quotePath(logical: string): string {
  const cut = logical.length > MAX_QUOTED ? `${logical.slice(0, MAX_QUOTED)}…` : logical;
  return JSON.stringify(cut);
}

/**
 * Build the `PreparationFailed` raised when a declared path cannot be pinned.
 *
 * @example
 * ```ts
 * import { pinFailure } from "./failure.ts";
 * const e = pinFailure("tools/run", "it is missing");
 * console.log(e.message);
 * ```
 */
export function pinFailure(declared: string, reason: string): PreparationFailed {
  return new PreparationFailed(
    `execution path ${quotePath(declared)} (relative to the workspace root, the folder of ` +
      `toolhost.toml) cannot be pinned: ${reason}; fix it in execution_paths or remove it`,
  );
}

/** U+FFFD, what a directory listing puts for bytes of a name that are not UTF-8. */
const REPLACEMENT = "\uFFFD";

/**
 * Describe an fs error by its code only (its message holds a physical path). `name` is the
 * entry's path as a directory listing spelled it: when it holds U+FFFD, the listing could
 * not decode the name, and the entry is missing only because that spelling names no file,
 * which the message says.
 *
 * @example
 * ```ts
 * import { describeFsError } from "./failure.ts";
 * describeFsError(Object.assign(new Error("x"), { code: "ENOENT" })); // "it is missing"
 * describeFsError({ code: "ENOENT" }, "entry \"a\"", "a\uFFFD"); // "... not valid UTF-8 ..."
 * ```
 */
export function describeFsError(e: unknown, what = "it", name = ""): string {
  const code = typeof e === "object" && e !== null && "code" in e ? String(e.code) : "";
  if ((code === "ENOENT" || code === "ENOTDIR") && name.includes(REPLACEMENT)) {
    return `${what} is missing, or its name is not valid UTF-8 and cannot be opened to pin ` +
      `it (rename it)`;
  }
  if (code === "ENOENT" || code === "ENOTDIR") return `${what} is missing`;
  if (code === "ELOOP") return `${what} is a symlink`;
  if (code === "EACCES" || code === "EPERM") return `${what} is not readable (permission denied)`;
  return /^E[A-Z0-9]+$/.test(code)
    ? `${what} could not be read (${code})`
    : `${what} could not be read`;
}

/**
 * Whether `e` is a failure this module raised (to pass through unchanged).
 *
 * @example
 * ```ts
 * import { isPinFailure, pinFailure } from "./failure.ts";
 * isPinFailure(pinFailure("a", "b")); // true
 * ```
 */
export function isPinFailure(e: unknown): e is PreparationFailed {
  return e instanceof PreparationFailed;
}
