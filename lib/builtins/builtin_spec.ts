/**
 * The shape of a built-in's static facts (lib/builtins/specs.ts, lib/native/specs.ts):
 * types only, in a file of their own so both spec tables import them without a cycle.
 *
 * @example
 * ```ts
 * import type { BuiltinSpec } from "./builtin_spec.ts";
 * const spec: BuiltinSpec = {
 *   target: "model", fixedArgs: [0, 0], modelSchema: { type: "object" }, description: "x",
 * };
 * ```
 *
 * @module
 */

/** How a built-in treats the declaration's `args`. */
export type TargetRule =
  /** `args` must be absent: the model supplies input. */
  | "model"
  /** `args` optional: absent → model input; present → a fixed target (exactly one path). */
  | "model-or-fixed"
  /** `args` required (a fixed target). */
  | "fixed"
  /** `args` must be exactly `[]`. */
  | "empty";

/** Static description of one built-in. */
export interface BuiltinSpec {
  /** How `args` are used. */
  target: TargetRule;
  /** Allowed number of fixed args when fixed: [min, max]. */
  fixedArgs: [number, number];
  /** Input schema when the model supplies input. */
  modelSchema: Record<string, unknown>;
  /** Default description template. */
  description: string;
}
