/**
 * Resource limits a declaration may set on a command tool, a tool session or an
 * extension: `max_memory_mb`, `max_cpu_seconds`, `max_processes`, their bounds, and the
 * value-free messages a breach produces.
 *
 * @module
 */

/** Declared resource limits (every field optional; none means unlimited). */
export interface ResourceLimits {
  /** Most memory of everything the tool started, in MiB (`max_memory_mb`). */
  maxMemoryMb?: number;
  /** Most CPU time of everything the tool started, in seconds (`max_cpu_seconds`). */
  maxCpuSeconds?: number;
  /**
   * Most simultaneously running processes the tool started, each counted with its threads
   * as the kernel's pids controller counts tasks (`max_processes`).
   */
  maxProcesses?: number;
}

/** Which limit stopped a run. */
export type LimitKind = "memory" | "cpu" | "processes";

/** One declaration key: its TOML name, its field, and its inclusive bounds. */
export interface LimitKey {
  /** TOML key. */
  key: "max_memory_mb" | "max_cpu_seconds" | "max_processes";
  /** Field of {@link ResourceLimits}. */
  field: keyof ResourceLimits;
  /** The limit it sets. */
  kind: LimitKind;
  /** Smallest accepted value. */
  min: number;
  /** Largest accepted value. */
  max: number;
}

/**
 * The three keys with their bounds: memory 1–1048576 MiB (1 TiB), CPU 1–604800 s (one
 * week), processes 1–65536.
 *
 * @example
 * ```ts
 * import { LIMIT_KEYS } from "./types.ts";
 * LIMIT_KEYS.map((k) => k.key); // ["max_memory_mb", "max_cpu_seconds", "max_processes"]
 * ```
 */
export const LIMIT_KEYS: readonly LimitKey[] = [
  { key: "max_memory_mb", field: "maxMemoryMb", kind: "memory", min: 1, max: 1_048_576 },
  { key: "max_cpu_seconds", field: "maxCpuSeconds", kind: "cpu", min: 1, max: 604_800 },
  { key: "max_processes", field: "maxProcesses", kind: "processes", min: 1, max: 65_536 },
];

/**
 * True when at least one limit is set.
 *
 * @example
 * ```ts
 * import { hasLimits } from "./types.ts";
 * hasLimits({}); // false
 * hasLimits({ maxProcesses: 4 }); // true
 * ```
 */
export function hasLimits(l: ResourceLimits | undefined): l is ResourceLimits {
  return l !== undefined && LIMIT_KEYS.some((k) => l[k.field] !== undefined);
}

/**
 * The message of a breach, e.g. `resource limit: memory (max_memory_mb = 64)`.
 *
 * @example
 * ```ts
 * import { limitMessage } from "./types.ts";
 * limitMessage("cpu", { maxCpuSeconds: 2 }); // "resource limit: cpu (max_cpu_seconds = 2)"
 * ```
 */
export function limitMessage(kind: LimitKind, limits: ResourceLimits | undefined): string {
  const k = LIMIT_KEYS.find((x) => x.kind === kind)!;
  const v = limits?.[k.field];
  return `resource limit: ${kind}${v === undefined ? "" : ` (${k.key} = ${v})`}`;
}

/**
 * The declared limits as TOML keys (for reports), in key order.
 *
 * @example
 * ```ts
 * import { limitsAsKeys } from "./types.ts";
 * limitsAsKeys({ maxMemoryMb: 64 }); // { max_memory_mb: 64 }
 * ```
 */
export function limitsAsKeys(l: ResourceLimits): Record<string, number> {
  const out: Record<string, number> = {};
  for (const k of LIMIT_KEYS) if (l[k.field] !== undefined) out[k.key] = l[k.field]!;
  return out;
}
