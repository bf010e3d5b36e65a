/**
 * Name rules for Artifact IDs, tool names and session names, and the published
 * names built from them.
 *
 * @module
 */

import { GET_ARTIFACT_FIELD, SEARCH_ARTIFACT_CONTENT } from "../artifacts/specs.ts";

/** `[a-z0-9][a-z0-9_-]*`, at most 64 characters. */
export const NAME_PATTERN = /^[a-z0-9][a-z0-9_-]{0,63}$/;

/**
 * Is `s` a valid Artifact ID, tool name or session name?
 *
 * @example
 * ```ts
 * import { isValidName } from "./names.ts";
 * isValidName("app"); // true
 * isValidName("App"); // false
 * ```
 */
export function isValidName(s: string): boolean {
  return NAME_PATTERN.test(s);
}

/**
 * The name under which an eval publishes a tool: `<tool>_<artifactId>`.
 *
 * @example
 * ```ts
 * import { publishedName } from "./names.ts";
 * publishedName("read", "app"); // "read_app"
 * ```
 */
export function publishedName(tool: string, artifactId: string): string {
  return `${tool}_${artifactId}`;
}

/**
 * The provenance key of a session command: `<session>_<artifactId>.start|.stop`.
 *
 * @example
 * ```ts
 * import { sessionPinKey } from "./names.ts";
 * sessionPinKey("app", "web", "start"); // "app_web.start"
 * ```
 */
export function sessionPinKey(
  session: string,
  artifactId: string,
  which: "start" | "stop",
): string {
  return `${session}_${artifactId}.${which}`;
}

/** Tool names toolhost lists in every agent eval; a declared tool may not publish them. */
export const RESERVED_TOOL_NAMES: readonly string[] = [
  GET_ARTIFACT_FIELD,
  SEARCH_ARTIFACT_CONTENT,
];
