/**
 * Withholding variables of the author's environment: a plugin that hands a variable out
 * per call (`protected-values` with `provider = "env"`) names it with
 * `api.withholdEnv(name)`, and the host removes it from the registry's environment — the
 * one every command tool, session, hook command and extension inherits — so the value
 * reaches only the processes whose call was granted it (`beforeCall` → `env`).
 *
 * @module
 */

/** Variable names: `[A-Za-z_][A-Za-z0-9_]*`. */
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Is `name` a variable name a plugin may withhold?
 *
 * @example
 * ```ts
 * import { isWithholdableName } from "./withhold_env.ts";
 * isWithholdableName("DEPLOY_TOKEN"); // true
 * isWithholdableName("A=B"); // false
 * ```
 */
export function isWithholdableName(name: unknown): name is string {
  return typeof name === "string" && ENV_NAME.test(name);
}

/**
 * Remove every name in `names` from `env`, in place (the registry keeps this very object
 * as the base of every process it starts). Returns false when a variable could not be
 * removed (a frozen or otherwise locked environment object) — the caller must then
 * refuse to open, since the value would reach every process.
 *
 * @example
 * ```ts
 * import { withholdVariables } from "./withhold_env.ts";
 * const env: Record<string, string> = { PATH: "/bin", DEPLOY_TOKEN: "x" };
 * withholdVariables(env, ["DEPLOY_TOKEN"]); // true
 * env; // { PATH: "/bin" }
 * ```
 */
export function withholdVariables(
  env: Record<string, string>,
  names: Iterable<string>,
): boolean {
  for (const name of names) {
    if (!Object.hasOwn(env, name)) continue;
    try {
      delete env[name];
    } catch { /* frozen: reported below */ }
    if (Object.hasOwn(env, name)) return false;
  }
  return true;
}
