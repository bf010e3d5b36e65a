/**
 * Reading the artifact tools' arguments; every problem is an `InvalidInputException`.
 *
 * @module
 */

import { invalidInput } from "./exceptions.ts";

/**
 * Check that `args` is an object with only `allowed` keys, and return it.
 *
 * @example
 * ```ts
 * import { readArgs } from "./args.ts";
 * readArgs({ query: "x" }, ["query"]); // { query: "x" }
 * ```
 */
export function readArgs(args: unknown, allowed: readonly string[]): Record<string, unknown> {
  if (typeof args !== "object" || args === null || Array.isArray(args)) {
    throw invalidInput("the arguments must be a JSON object.");
  }
  const o = args as Record<string, unknown>;
  for (const key of Object.keys(o)) {
    if (!allowed.includes(key)) {
      throw invalidInput(`unknown argument; the allowed arguments are: ${allowed.join(", ")}.`);
    }
  }
  return o;
}

/**
 * A required non-empty string argument.
 *
 * @example
 * ```ts
 * import { requiredString } from "./args.ts";
 * requiredString({ field: "id" }, "field"); // "id"
 * ```
 */
export function requiredString(o: Record<string, unknown>, key: string): string {
  const v = o[key];
  if (typeof v !== "string" || v === "") {
    throw invalidInput(`\`${key}\` is required and must be a non-empty string.`);
  }
  return v;
}

/**
 * An optional non-empty string argument.
 *
 * @example
 * ```ts
 * import { optionalString } from "./args.ts";
 * optionalString({}, "artifact_type"); // undefined
 * ```
 */
export function optionalString(o: Record<string, unknown>, key: string): string | undefined {
  if (o[key] === undefined) return undefined;
  return requiredString(o, key);
}

/**
 * An optional integer argument of at least `min`, defaulting to `fallback`.
 *
 * @example
 * ```ts
 * import { optionalInteger } from "./args.ts";
 * optionalInteger({ offset: 5 }, "offset", 0, 0); // 5
 * ```
 */
export function optionalInteger(
  o: Record<string, unknown>,
  key: string,
  min: number,
  fallback: number,
): number {
  const v = o[key];
  if (v === undefined) return fallback;
  if (typeof v !== "number" || !Number.isSafeInteger(v) || v < min) {
    throw invalidInput(`\`${key}\` must be an integer of at least ${min}.`);
  }
  return v;
}
