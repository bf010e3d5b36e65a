/**
 * Plain-protocol argv placeholders: `{name}` (whole token or embedded), with `{{` and
 * `}}` escaping literal braces.
 *
 * @module
 */

/** One piece of a parsed argv template element. */
export type TemplatePart = { literal: string } | { placeholder: string };

/**
 * Parse a template element into literal and placeholder parts.
 *
 * @example
 * ```ts
 * import { parseTemplate } from "./placeholders.ts";
 * parseTemplate("--q={query}"); // { ok: true, parts: [{literal:"--q="},{placeholder:"query"}] }
 * ```
 */
export function parseTemplate(
  s: string,
): { ok: true; parts: TemplatePart[] } | { ok: false; reason: string } {
  const parts: TemplatePart[] = [];
  let lit = "";
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if ((c === "{" || c === "}") && s[i + 1] === c) {
      lit += c;
      i++;
    } else if (c === "{") {
      const end = s.indexOf("}", i + 1);
      const name = end < 0 ? "" : s.slice(i + 1, end);
      if (!/^[A-Za-z_][A-Za-z0-9_-]*$/.test(name)) {
        return {
          ok: false,
          reason: "malformed placeholder; write `{property}`, or `{{`/`}}` for literal braces",
        };
      }
      if (lit) parts.push({ literal: lit });
      lit = "";
      parts.push({ placeholder: name });
      i = end;
    } else if (c === "}") {
      return { ok: false, reason: "unmatched `}`; write `}}` for a literal brace" };
    } else lit += c;
  }
  if (lit) parts.push({ literal: lit });
  return { ok: true, parts };
}

/**
 * The placeholder names used in one template element.
 *
 * @example
 * ```ts
 * import { plainPlaceholders } from "./placeholders.ts";
 * plainPlaceholders("{a}-{b}"); // { ok: true, names: ["a", "b"] }
 * ```
 */
export function plainPlaceholders(
  s: string,
): { ok: true; names: string[] } | { ok: false; reason: string } {
  const r = parseTemplate(s);
  if (!r.ok) return r;
  const names: string[] = [];
  for (const part of r.parts) if ("placeholder" in part) names.push(part.placeholder);
  return { ok: true, names };
}
