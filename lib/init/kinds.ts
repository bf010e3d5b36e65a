/**
 * What `toolhost init` can scaffold, and the rules for NAME.
 *
 * @module
 */

import { InvocationError } from "../errors/errors.ts";
import { isValidName } from "../workspace/names.ts";
import { suggest } from "../workspace/problems.ts";

/** The kinds `toolhost init` scaffolds. */
export const INIT_KINDS = ["json-tool", "plain-tool", "harness"] as const;

/** One kind `toolhost init` scaffolds. */
export type InitKind = typeof INIT_KINDS[number];

/** Longest NAME of a harness: its bound tools `NAME_set` / `NAME_get` must fit in 64. */
export const MAX_HARNESS_NAME = 60;

/** The templates of `toolhost init harness NAME --template T` (absent: the key-value one). */
export const HARNESS_TEMPLATES = ["browser"] as const;

/** One `--template` of `toolhost init harness`. */
export type HarnessTemplate = typeof HARNESS_TEMPLATES[number];

/** Longest NAME of a browser harness: its tool `NAME_console_logs` must fit in 64. */
export const MAX_BROWSER_NAME = 64 - "_console_logs".length;

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
 * Check `template` (only `harness` has templates): throws {@linkcode InvocationError}
 * (exit 2) for a template of another kind or one that does not exist.
 *
 * @example
 * ```ts
 * import { checkTemplate } from "./kinds.ts";
 * checkTemplate("harness", "browser"); // "browser"
 * checkTemplate("json-tool", undefined); // undefined
 * ```
 */
export function checkTemplate(
  kind: InitKind,
  template: string | undefined,
): HarnessTemplate | undefined {
  if (template === undefined) return undefined;
  if (kind !== "harness") {
    throw new InvocationError(
      `--template is for a harness only (toolhost init harness NAME --template ${
        HARNESS_TEMPLATES.join("|")
      })`,
    );
  }
  if (!(HARNESS_TEMPLATES as readonly string[]).includes(template)) {
    throw new InvocationError(
      `--template must be one of ${
        HARNESS_TEMPLATES.join(", ")
      } (or absent, for the key-value harness)`,
    );
  }
  return template as HarnessTemplate;
}

/**
 * Check `kind` and `name`; throws {@linkcode InvocationError} (exit 2) when the kind is
 * unknown or the name breaks `[a-z0-9][a-z0-9_-]*` / at most 64 characters (60 for a
 * harness, whose bound tools are `NAME_set` and `NAME_get`; 51 for a browser harness,
 * whose longest is `NAME_console_logs`).
 *
 * @example
 * ```ts
 * import { checkKindAndName } from "./kinds.ts";
 * checkKindAndName("json-tool", "greet"); // "json-tool"
 * ```
 */
export function checkKindAndName(
  kind: string,
  name: string,
  template?: HarnessTemplate,
): InitKind {
  if (!isInitKind(kind)) {
    // "session" is what a tool session's scaffold is called everywhere but here.
    const likely = /session/i.test(kind) ? "harness" : suggest(kind, INIT_KINDS);
    const hint = likely === undefined ? "" : ` (did you mean \`${likely}\`?)`;
    throw new InvocationError(`the kind must be one of ${INIT_KINDS.join(", ")}${hint}`);
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
  if (template === "browser" && name.length > MAX_BROWSER_NAME) {
    throw new InvocationError(
      `a browser harness NAME is at most ${MAX_BROWSER_NAME} characters, so that its tool NAME_console_logs fits in 64`,
    );
  }
  return kind;
}
