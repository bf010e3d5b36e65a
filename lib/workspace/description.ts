/**
 * Tool descriptions: nonblank, at most 4000 UTF-16 code units, with only
 * `{artifactName}` interpolated (`{{` and `}}` escape literal braces).
 *
 * @module
 */

import { LIMITS } from "../results/types.ts";

/**
 * Render a description template for an Artifact, or return why it is invalid.
 *
 * @example
 * ```ts
 * import { renderDescription } from "./description.ts";
 * renderDescription("Search {artifactName}.", "app"); // { ok: true, text: "Search app." }
 * ```
 */
export function renderDescription(
  template: string,
  artifactId: string,
): { ok: true; text: string } | { ok: false; reason: string } {
  let out = "";
  for (let i = 0; i < template.length; i++) {
    const c = template[i];
    if (c === "{" && template[i + 1] === "{") {
      out += "{";
      i++;
    } else if (c === "}" && template[i + 1] === "}") {
      out += "}";
      i++;
    } else if (c === "{") {
      const end = template.indexOf("}", i);
      const name = end < 0 ? "" : template.slice(i + 1, end);
      if (name !== "artifactName") {
        return {
          ok: false,
          reason: "only `{artifactName}` is interpolated; write `{{` and `}}` for literal braces",
        };
      }
      out += artifactId;
      i = end;
    } else if (c === "}") {
      return { ok: false, reason: "unmatched `}`; write `}}` for a literal brace" };
    } else out += c;
  }
  if (out.trim() === "") return { ok: false, reason: "must not be blank" };
  if (out.length > LIMITS.maxDescriptionUnits) {
    return {
      ok: false,
      reason: `is ${out.length} UTF-16 code units; the limit is ${LIMITS.maxDescriptionUnits}`,
    };
  }
  return { ok: true, text: out };
}
