/**
 * Filling `toolhost init` templates: `{{NAME}}`-style placeholders (upper-case letters and
 * `_`) replaced by values, strictly: an unknown placeholder is a bug in the template, not
 * something to ship half-filled.
 *
 * @module
 */

const PLACEHOLDER = /\{\{([A-Z][A-Z_]*)\}\}/g;

/**
 * Replace every `{{KEY}}` in `template` with `vars[KEY]`. Throws when the template names
 * a key that `vars` lacks, or when a value holds a control character (a value must not be
 * able to break out of a comment or a line).
 *
 * @example
 * ```ts
 * import { fillTemplate } from "./fill.ts";
 * fillTemplate("hello {{NAME}}", { NAME: "greet" }); // "hello greet"
 * ```
 */
export function fillTemplate(template: string, vars: Readonly<Record<string, string>>): string {
  for (const [key, value] of Object.entries(vars)) {
    // deno-lint-ignore no-control-regex
    if (/[\u0000-\u001f\u007f]/.test(value)) {
      throw new TypeError(`template value ${key} holds a control character`);
    }
  }
  return template.replace(PLACEHOLDER, (_m, key: string) => {
    if (!Object.hasOwn(vars, key)) throw new TypeError(`template placeholder ${key} has no value`);
    return vars[key];
  });
}
