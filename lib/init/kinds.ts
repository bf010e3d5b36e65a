/**
 * What `toolhost init` can scaffold, and the rules for NAME.
 *
 * @module
 */

import { InvocationError } from "../errors/errors.ts";
import { isValidName } from "../workspace/names.ts";

/** The kinds `toolhost init` scaffolds. */
export const INIT_KINDS = ["json-tool", "plain-tool", "harness"] as const;

/** One kind `toolhost init` scaffolds. */
export type InitKind = typeof INIT_KINDS[number];

/** Longest NAME of a harness: its bound tools `NAME_set` / `NAME_get` must fit in 64. */
export const MAX_HARNESS_NAME = 60;

/**
 * Is `s` a kind `toolhost init` scaffolds?
 *
 * @example
 * ```ts
 * import { isInitKind } from "./kinds.ts";
 * isInitKind("harness"); // true
 * isInitKind("session"); // false
 * ```
 */
export function isInitKind(s: string): s is InitKind {
  return (INIT_KINDS as readonly string[]).includes(s);
}

/**
 * Check `kind` and `name`; throws {@linkcode InvocationError} (exit 2) when the kind is
 * unknown or the name breaks `[a-z0-9][a-z0-9_-]*` / at most 64 characters (60 for a
 * harness, whose bound tools are `NAME_set` and `NAME_get`).
 *
 * @example
 * ```ts
 * import { checkKindAndName } from "./kinds.ts";
 * checkKindAndName("json-tool", "greet"); // "json-tool"
 * ```
 */
export function checkKindAndName(kind: string, name: string): InitKind {
  if (!isInitKind(kind)) {
    throw new InvocationError(`the kind must be one of ${INIT_KINDS.join(", ")}`);
  }
  if (!isValidName(name)) {
    throw new InvocationError(
      "NAME must match [a-z0-9][a-z0-9_-]* and be at most 64 characters, e.g. greet",
    );
  }
  if (kind === "harness" && name.length > MAX_HARNESS_NAME) {
    throw new InvocationError(
      `a harness NAME is at most ${MAX_HARNESS_NAME} characters, so that its tools NAME_set and NAME_get fit in 64`,
    );
  }
  return kind;
}
