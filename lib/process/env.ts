/**
 * The environment a command tool runs in: the author's own environment (real home
 * included) minus the caller's `ARTIFACTIZE_*` / `TOOLHOST_*` variables (any letter case), plus a private
 * temporary directory and whatever the caller adds on purpose (e.g. a session directory).
 *
 * @module
 */

import process from "node:process";

/**
 * This process's environment as a plain record (variables without a value left out): the
 * default base of a registry, an extension host and a lock build.
 *
 * @example
 * ```ts
 * import { processEnv } from "./env.ts";
 * typeof processEnv().PATH; // "string" on most machines
 * ```
 */
export function processEnv(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined) out[k] = v;
  return out;
}

/**
 * Whether `name` is a portable environment variable name (`[A-Za-z_][A-Za-z0-9_]*`).
 *
 * @example
 * ```ts
 * import { isEnvName } from "./env.ts";
 * isEnvName("DEPLOY_TOKEN"); // true
 * isEnvName("1X"); // false
 * ```
 */
export function isEnvName(name: unknown): name is string {
  return typeof name === "string" && /^[A-Za-z_][A-Za-z0-9_]*$/.test(name);
}

/** Options of {@linkcode toolEnvironment}. */
export interface ToolEnvironmentOptions {
  /** Private per-call temporary directory, exported as TMPDIR, TMP and TEMP. */
  tmpDir?: string;
}

/** Prefixes of caller variables that never reach a tool. */
export const STRIPPED_ENV_PREFIXES: readonly string[] = ["ARTIFACTIZE_", "TOOLHOST_"];

/**
 * Build a tool's environment. Order: `base` without stripped prefixes, then
 * TMPDIR/TMP/TEMP from `options.tmpDir`, then `extra` (which may deliberately set
 * `TOOLHOST_*`/`ARTIFACTIZE_*` names such as the session directory). Entries whose value
 * is undefined (as in `process.env`) are skipped.
 *
 * @example
 * ```ts
 * import { toolEnvironment } from "./env.ts";
 * const env = toolEnvironment(
 *   { HOME: "/home/a", TOOLHOST_TOKEN: "x", ARTIFACTIZE_X: "y" },
 *   { ARTIFACTIZE_SESSION_DIR: "/s" },
 *   { tmpDir: "/t" },
 * );
 * // { HOME: "/home/a", TMPDIR: "/t", TMP: "/t", TEMP: "/t", ARTIFACTIZE_SESSION_DIR: "/s" }
 * ```
 */
export function toolEnvironment(
  base: Record<string, string | undefined>,
  extra: Record<string, string> = {},
  options: ToolEnvironmentOptions = {},
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(base)) {
    if (value === undefined) continue;
    const upper = name.toUpperCase();
    if (STRIPPED_ENV_PREFIXES.some((p) => upper.startsWith(p))) continue;
    env[name] = value;
  }
  if (options.tmpDir !== undefined) {
    env.TMPDIR = options.tmpDir;
    env.TMP = options.tmpDir;
    env.TEMP = options.tmpDir;
  }
  for (const [name, value] of Object.entries(extra)) env[name] = value;
  return env;
}
