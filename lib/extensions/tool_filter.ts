/**
 * `enabled_tools` / `disabled_tools` of an extension: names or globs (`*` any run, `?`
 * one character) of the server's own tool names. A tool is taken when it matches an
 * enabled entry (or there is no `enabled_tools`) and no disabled one.
 *
 * @module
 */

import type { ExtensionDecl } from "../workspace/parse_extensions.ts";

/**
 * A glob of tool names as a predicate (`*` and `?`; everything else literal).
 *
 * @example
 * ```ts
 * import { globMatcher } from "./tool_filter.ts";
 * globMatcher("get_*")("get_issue"); // true
 * globMatcher("get_?")("get_ab"); // false
 * ```
 */
export function globMatcher(glob: string): (name: string) => boolean {
  const body = [...glob].map((c) =>
    c === "*" ? ".*" : c === "?" ? "." : c.replace(/[.\-]/g, (x) => `\\${x}`)
  ).join("");
  const re = new RegExp(`^${body}$`, "s");
  return (name) => re.test(name);
}

/**
 * The predicate of an extension's filters (always true without any).
 *
 * @example
 * ```ts
 * import { toolFilter } from "./tool_filter.ts";
 * const keep = toolFilter({ enabledTools: ["read_*"], disabledTools: ["read_secret"] });
 * keep("read_file"); // true
 * keep("read_secret"); // false
 * keep("write_file"); // false
 * ```
 */
export function toolFilter(
  decl: Pick<ExtensionDecl, "enabledTools" | "disabledTools">,
): (name: string) => boolean {
  const enabled = decl.enabledTools?.map(globMatcher);
  const disabled = (decl.disabledTools ?? []).map(globMatcher);
  return (name) =>
    (enabled === undefined || enabled.some((m) => m(name))) && !disabled.some((m) => m(name));
}
