/**
 * A small, dependency-free argument check for harness-kit tools.
 *
 * toolhost itself validates every call against the declared `input_schema` with full
 * JSON Schema (ajv) before any process starts, so this is a second, cheap guard for
 * running a tool by hand — and it keeps harness-kit free of dependencies and fast to
 * start (it runs once per call). Supported keywords: `type` (string or list), `enum`,
 * `const`, `properties`, `required`, `additionalProperties` (boolean or schema),
 * `minLength`, `maxLength`, `minimum`, `maximum`, `exclusiveMinimum`,
 * `exclusiveMaximum`, `items`, `minItems`, `maxItems`. Other keywords are ignored.
 * Problems name instance paths, never values.
 *
 * It never evaluates a regular expression: toolhost has already checked `pattern` and
 * `patternProperties` with RE2 (linear time, RE2 syntax), and re-checking them with the
 * JavaScript engine could be slower (backtracking), reject RE2-only syntax, or refuse
 * arguments toolhost admitted. So `pattern` is skipped, and an undeclared key of an
 * object whose schema has `patternProperties` is allowed (it may match one). The check
 * is never stricter than toolhost's admission.
 *
 * @module
 */

import type { JsonSchema } from "./types.ts";

const MAX_PROBLEMS = 5;

function typeOf(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  if (typeof v === "number") return Number.isInteger(v) ? "integer" : "number";
  return typeof v;
}

function typeMatches(v: unknown, want: string): boolean {
  const t = typeOf(v);
  return t === want || (want === "number" && t === "integer");
}

function escapePointer(key: string): string {
  return key.replaceAll("~", "~0").replaceAll("/", "~1");
}

class Checker {
  problems: string[] = [];

  add(path: string, rule: string): void {
    if (this.problems.length < MAX_PROBLEMS) this.problems.push(`${path || "/"}: ${rule}`);
  }

  check(schema: unknown, v: unknown, path: string): void {
    if (typeof schema !== "object" || schema === null) return;
    const s = schema as JsonSchema;
    if (s.type !== undefined) {
      const types = Array.isArray(s.type) ? s.type as string[] : [s.type as string];
      if (!types.some((t) => typeMatches(v, t))) {
        return this.add(path, `must be ${types.join(" or ")}`);
      }
    }
    if (Array.isArray(s.enum) && !s.enum.some((e) => JSON.stringify(e) === JSON.stringify(v))) {
      this.add(path, "must be one of the allowed values");
    }
    if ("const" in s && JSON.stringify(s.const) !== JSON.stringify(v)) {
      this.add(path, "must be the constant value");
    }
    if (typeof v === "string") this.string(s, v, path);
    if (typeof v === "number") this.number(s, v, path);
    if (Array.isArray(v)) this.array(s, v, path);
    if (typeOf(v) === "object") this.object(s, v as Record<string, unknown>, path);
  }

  string(s: JsonSchema, v: string, path: string): void {
    const len = [...v].length;
    if (typeof s.minLength === "number" && len < s.minLength) {
      this.add(path, `must have at least ${s.minLength} characters`);
    }
    if (typeof s.maxLength === "number" && len > s.maxLength) {
      this.add(path, `must have at most ${s.maxLength} characters`);
    }
    // `pattern` is deliberately not evaluated (see the module doc).
  }

  number(s: JsonSchema, v: number, path: string): void {
    if (typeof s.minimum === "number" && v < s.minimum) this.add(path, `must be >= ${s.minimum}`);
    if (typeof s.maximum === "number" && v > s.maximum) this.add(path, `must be <= ${s.maximum}`);
    if (typeof s.exclusiveMinimum === "number" && v <= s.exclusiveMinimum) {
      this.add(path, `must be > ${s.exclusiveMinimum}`);
    }
    if (typeof s.exclusiveMaximum === "number" && v >= s.exclusiveMaximum) {
      this.add(path, `must be < ${s.exclusiveMaximum}`);
    }
  }

  array(s: JsonSchema, v: unknown[], path: string): void {
    if (typeof s.minItems === "number" && v.length < s.minItems) {
      this.add(path, `must have at least ${s.minItems} items`);
    }
    if (typeof s.maxItems === "number" && v.length > s.maxItems) {
      this.add(path, `must have at most ${s.maxItems} items`);
    }
    if (typeof s.items === "object" && s.items !== null && !Array.isArray(s.items)) {
      v.forEach((item, i) => this.check(s.items, item, `${path}/${i}`));
    }
  }

  object(s: JsonSchema, v: Record<string, unknown>, path: string): void {
    const props =
      (typeof s.properties === "object" && s.properties !== null ? s.properties : {}) as Record<
        string,
        unknown
      >;
    if (Array.isArray(s.required)) {
      for (const k of s.required as string[]) {
        if (!Object.hasOwn(v, k)) this.add(`${path}/${escapePointer(k)}`, "is required");
      }
    }
    // A key that may match a `patternProperties` pattern is left to toolhost's RE2 check.
    const patterned = typeof s.patternProperties === "object" && s.patternProperties !== null &&
      Object.keys(s.patternProperties).length > 0;
    for (const [k, value] of Object.entries(v)) {
      if (Object.hasOwn(props, k)) this.check(props[k], value, `${path}/${escapePointer(k)}`);
      else if (patterned) continue;
      else if (s.additionalProperties === false) {
        this.add(path, "has a property that is not allowed");
      } // An undeclared key is caller-chosen: never echo it.
      else if (typeof s.additionalProperties === "object") {
        this.check(s.additionalProperties, value, `${path}/*`);
      }
    }
  }
}

/**
 * Check `value` against the supported subset of `schema`; returns at most five problems
 * (`/instance/path: rule`), empty when valid. Never throws.
 *
 * @example
 * ```ts
 * import { validateArgs } from "./validate.ts";
 * validateArgs({ type: "object", required: ["by"] }, {}); // ["/by: is required"]
 * ```
 */
export function validateArgs(schema: JsonSchema, value: unknown): string[] {
  const c = new Checker();
  try {
    c.check(schema, value, "");
  } catch {
    // A schema or value this walk cannot handle (e.g. nested too deeply for the stack):
    // a clean, value-free problem instead of an exception escaping into the tool.
    return ["/: could not be checked"];
  }
  return c.problems;
}
