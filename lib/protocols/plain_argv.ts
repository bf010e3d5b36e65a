/**
 * Plain-protocol argv templates. Placeholders are `{name}` for a top-level
 * `input_schema.properties` name, usable as a whole element (`{query}`) or embedded
 * (`--query={query}`). `{{` and `}}` are literal braces. Substitution is single-pass and
 * never involves a shell: each template element yields exactly one argv element, so
 * values with braces, quotes, spaces, `$()` or `;` stay literal. Strings substitute as
 * is; other JSON values as compact JSON. Missing values and NUL bytes fail before spawn.
 *
 * @module
 */

import { DeclarationError, InvocationError } from "../errors/errors.ts";

/** A template problem found at declaration time. */
export interface PlaceholderProblem {
  /** 0-based index of the template element. */
  element: number;
  /** What is wrong and what to do. */
  message: string;
}

type Segment = { literal: string } | { name: string };

function parseElement(el: string): Segment[] | string {
  const out: Segment[] = [];
  let lit = "";
  let i = 0;
  while (i < el.length) {
    const c = el[i];
    if (c === "{" && el[i + 1] === "{") {
      lit += "{";
      i += 2;
    } else if (c === "}" && el[i + 1] === "}") {
      lit += "}";
      i += 2;
    } else if (c === "}") {
      return "unmatched `}`; write `}}` for a literal brace";
    } else if (c === "{") {
      const close = el.indexOf("}", i + 1);
      const name = close < 0 ? "" : el.slice(i + 1, close);
      if (close < 0 || name === "" || name.includes("{")) {
        return "malformed placeholder; use `{property}`, or `{{` for a literal brace";
      }
      if (lit !== "") out.push({ literal: lit });
      lit = "";
      out.push({ name });
      i = close + 1;
    } else {
      lit += c;
      i++;
    }
  }
  if (lit !== "" || out.length === 0) out.push({ literal: lit });
  return out;
}

/**
 * The placeholder names used by a plain argv template, in first-use order, or the first
 * syntax problem. The declaration validator checks the names against
 * `input_schema.properties`.
 *
 * @example
 * ```ts
 * import { plainPlaceholders } from "./plain_argv.ts";
 * plainPlaceholders(["--query={query}", "{{literal}}", "{path}"]); // ["query", "path"]
 * plainPlaceholders(["{oops"]); // { element: 0, message: "malformed placeholder; ..." }
 * ```
 */
export function plainPlaceholders(template: string[]): string[] | PlaceholderProblem {
  const names: string[] = [];
  for (let i = 0; i < template.length; i++) {
    const segs = parseElement(template[i]);
    if (typeof segs === "string") return { element: i, message: segs };
    for (const s of segs) if ("name" in s && !names.includes(s.name)) names.push(s.name);
  }
  return names;
}

function render(name: string, args: Record<string, unknown>): string {
  const value = Object.hasOwn(args, name) ? args[name] : undefined;
  const text = typeof value === "string"
    ? value
    : value === undefined
    ? undefined
    : JSON.stringify(value);
  if (text === undefined) {
    throw new InvocationError(
      `The command line needs argument \`${name}\`, which was not given.`,
      "INVALID_ARGUMENTS",
    );
  }
  if (text.includes("\0")) {
    throw new InvocationError(
      `Argument \`${name}\` contains a NUL byte, which cannot be passed on a command line.`,
      "INVALID_ARGUMENTS",
    );
  }
  return text;
}

/**
 * Substitute `args` into a plain argv template. Throws `InvocationError`
 * (`INVALID_ARGUMENTS`) for a missing value or a NUL byte, and `DeclarationError` for a
 * malformed template or a placeholder outside `properties` — always before any spawn.
 *
 * @example
 * ```ts
 * import { substitutePlainArgv } from "./plain_argv.ts";
 * substitutePlainArgv(["--query={query}", "{n}", "{{x}}"], ["query", "n"], { query: "a b; $(c)", n: 3 });
 * // ["--query=a b; $(c)", "3", "{x}"]
 * ```
 */
export function substitutePlainArgv(
  template: string[],
  properties: string[],
  args: Record<string, unknown>,
): string[] {
  return template.map((el, i) => {
    const segs = parseElement(el);
    if (typeof segs === "string") {
      throw new DeclarationError(`plain argv element ${i + 1}: ${segs}`);
    }
    let out = "";
    for (const s of segs) {
      if ("literal" in s) {
        out += s.literal;
      } else if (!properties.includes(s.name)) {
        throw new DeclarationError(
          `plain argv element ${
            i + 1
          }: placeholder \`${s.name}\` is not a top-level input_schema property`,
        );
      } else {
        out += render(s.name, args);
      }
    }
    if (out.includes("\0")) {
      throw new DeclarationError(`plain argv element ${i + 1} contains a NUL byte`);
    }
    return out;
  });
}
