/**
 * The refusal of `toolhost init` to overwrite a file, shared by the manifest edit and
 * the undo log (a file of its own, so neither imports the other for it).
 *
 * @module
 */

import { PathError } from "../errors/errors.ts";

/**
 * The error for a file `toolhost init` would have to overwrite.
 *
 * @example
 * ```ts
 * import { existsError } from "./exists_error.ts";
 * existsError("tools/greet.mjs").message;
 * ```
 */
export function existsError(rel: string): PathError {
  return new PathError(
    `\`${rel}\` already exists; toolhost init never overwrites a file: choose another NAME or move that file away`,
  );
}
