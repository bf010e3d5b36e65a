/**
 * `protectedBindings` (`{"ENV_NAME": "protected://ref"}`) → environment variables for the
 * one process a call starts. Names that steer how programs are found or loaded are
 * refused, and so is any reference the provider cannot resolve. Messages never name a
 * reference or a value.
 *
 * @module
 */

/** The scheme of a protected reference. */
export const SCHEME = "protected://";
/** Most bindings per call. */
export const MAX_BINDINGS = 32;

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;
const RESERVED =
  /^(PATH|HOME|SHELL|TMPDIR|TMP|TEMP|IFS|ENV|BASH_ENV|LD_.*|DYLD_.*|TOOLHOST_.*|ARTIFACTIZE_.*)$/i;

/** Outcome of {@link resolveBindings}. */
export type BindingOutcome =
  | { ok: true; env: Record<string, string> }
  | { ok: false; reason: string };

/**
 * Resolve a call's bindings against the provider's values.
 *
 * @example
 * ```ts
 * import { resolveBindings } from "./bindings.ts";
 * resolveBindings({ API_TOKEN: "protected://t" }, new Map([["t", "abc"]]));
 * // { ok: true, env: { API_TOKEN: "abc" } }
 * ```
 */
export function resolveBindings(raw: unknown, values: ReadonlyMap<string, string>): BindingOutcome {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
    return {
      ok: false,
      reason: "protectedBindings must be an object of NAME → protected:// reference",
    };
  }
  const entries = Object.entries(raw);
  if (entries.length > MAX_BINDINGS) {
    return { ok: false, reason: `at most ${MAX_BINDINGS} protected bindings are allowed per call` };
  }
  const env: Record<string, string> = {};
  let unresolved = 0;
  for (const [name, ref] of entries) {
    if (!ENV_NAME.test(name) || RESERVED.test(name)) {
      return {
        ok: false,
        reason: "a protected binding names a variable that cannot be bound (PATH, HOME, LD_*, " +
          "TOOLHOST_* and similar are reserved; names must match [A-Za-z_][A-Za-z0-9_]*)",
      };
    }
    const value = typeof ref === "string" && ref.startsWith(SCHEME)
      ? values.get(ref.slice(SCHEME.length))
      : undefined;
    if (value === undefined) unresolved++;
    else env[name] = value;
  }
  if (unresolved > 0) {
    return {
      ok: false,
      reason: `${unresolved} of ${entries.length} protected bindings could not be resolved; ` +
        "use protected:// references this host provides",
    };
  }
  return { ok: true, env };
}
