/**
 * Withholding variables of the author's environment: a plugin that hands a variable out
 * per call (`protected-values` with `provider = "env"`) names it with
 * `api.withholdEnv(name)`, and the host removes it from the registry's environment — the
 * one every command tool, session, hook command and extension inherits — so the value
 * reaches only the processes whose call was granted it (`beforeCall` → `env`).
 *
 * @module
 */

import { isEnvName } from "../process/env.ts";

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
  return isEnvName(name);
}

/**
 * Remove every name in `names` from `env`, in place: the registry's own copy of the
 * environment, the base of every process it starts.
 *
 * @example
 * ```ts
 * import { withholdVariables } from "./withhold_env.ts";
 * const env: Record<string, string> = { PATH: "/bin", DEPLOY_TOKEN: "x" };
 * withholdVariables(env, ["DEPLOY_TOKEN"]); // env.DEPLOY_TOKEN is gone
 * env; // { PATH: "/bin" }
 * ```
 */
export function withholdVariables(
  env: Record<string, string>,
  names: Iterable<string>,
): void {
  for (const name of names) delete env[name];
}
