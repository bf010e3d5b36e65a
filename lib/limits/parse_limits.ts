/**
 * Declaration readers for the trust keys: `max_memory_mb`, `max_cpu_seconds`,
 * `max_processes` (command tools, sessions, extensions) and `overflow` (plain tools and
 * extensions). Problems name the TOML key path; values are never echoed.
 *
 * @module
 */

import { mustBeOneOf, type Problems, type Table } from "../workspace/problems.ts";
import { LIMIT_KEYS, type ResourceLimits } from "./types.ts";

/**
 * The TOML keys of the resource limits.
 *
 * @example
 * ```ts
 * import { RESOURCE_LIMIT_KEYS } from "./parse_limits.ts";
 * RESOURCE_LIMIT_KEYS; // ["max_memory_mb", "max_cpu_seconds", "max_processes"]
 * ```
 */
export const RESOURCE_LIMIT_KEYS: readonly string[] = LIMIT_KEYS.map((k) => k.key);

/** What to do with output beyond the 64 KiB text cap. */
export type OverflowMode = "truncate" | "artifact";

/**
 * Read the resource-limit keys of a table: each must be an integer within its bounds.
 * Returns undefined when none is set (or every one set is invalid).
 *
 * @example
 * ```ts
 * import { Problems } from "../workspace/problems.ts";
 * import { readLimits } from "./parse_limits.ts";
 * readLimits(new Problems("toolhost.toml", ""), "artifacts.app.views.agent_tools.x", { max_processes: 8 });
 * // { maxProcesses: 8 }
 * ```
 */
export function readLimits(p: Problems, at: string, t: Table): ResourceLimits | undefined {
  const out: ResourceLimits = {};
  let any = false;
  for (const k of LIMIT_KEYS) {
    const v = t[k.key];
    if (v === undefined) continue;
    if (typeof v !== "number" || !Number.isInteger(v) || v < k.min || v > k.max) {
      p.add(`${at}.${k.key}`, `must be an integer from ${k.min} to ${k.max}`);
      continue;
    }
    out[k.field] = v;
    any = true;
  }
  return any ? out : undefined;
}

/**
 * Read `overflow` (`"truncate"` or `"artifact"`), or `fallback` when absent.
 *
 * @example
 * ```ts
 * import { Problems } from "../workspace/problems.ts";
 * import { readOverflow } from "./parse_limits.ts";
 * readOverflow(new Problems("toolhost.toml", ""), "extensions.fs", {}, "artifact"); // "artifact"
 * ```
 */
export function readOverflow(
  p: Problems,
  at: string,
  t: Table,
  fallback: OverflowMode,
): OverflowMode {
  const v = t.overflow;
  if (v === undefined) return fallback;
  if (v !== "truncate" && v !== "artifact") {
    p.add(`${at}.overflow`, mustBeOneOf(v, ["truncate", "artifact"]));
    return fallback;
  }
  return v;
}

/**
 * Read `overflow` of a command tool: only plain-protocol tools take it (json results
 * have their own per-block limits). Returns undefined for json tools or when absent.
 *
 * @example
 * ```ts
 * import { Problems } from "../workspace/problems.ts";
 * import { readToolOverflow } from "./parse_limits.ts";
 * readToolOverflow(new Problems("toolhost.toml", ""), "a", { overflow: "artifact" }, "plain"); // "artifact"
 * ```
 */
export function readToolOverflow(
  p: Problems,
  at: string,
  t: Table,
  protocol: string | undefined,
): OverflowMode | undefined {
  if (t.overflow === undefined) return undefined;
  if (protocol === "json") {
    p.add(
      `${at}.overflow`,
      "applies only to plain-protocol tools (json results are bounded per block)",
    );
    return undefined;
  }
  return readOverflow(p, at, t, "truncate");
}
