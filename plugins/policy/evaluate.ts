/**
 * Evaluating a policy for one call: the first rule whose tool globs and argument matchers
 * all match decides; otherwise the default. No decision is ever cached, so a call that
 * was allowed before is judged again — by the rules in force now.
 *
 * @module
 */

import { matchesAny } from "../../lib/plugins/mod.ts";
import type { ArgMatcher, Policy, PolicyRule } from "./rules.ts";

/** A policy decision. */
export interface PolicyDecision {
  /** allow or deny. */
  effect: "allow" | "deny";
  /** The deciding rule (1-based), or null for the default. */
  rule: number | null;
  /** Why (deny only). */
  reason?: string;
}

/**
 * The value at a JSON pointer, or undefined when absent.
 *
 * @example
 * ```ts
 * import { atPointer } from "./evaluate.ts";
 * atPointer({ a: [1, { b: "x" }] }, ["a", "1", "b"]); // "x"
 * ```
 */
export function atPointer(value: unknown, tokens: readonly string[]): unknown {
  let cur = value;
  for (const t of tokens) {
    if (Array.isArray(cur)) {
      if (!/^(0|[1-9][0-9]*)$/.test(t)) return undefined;
      cur = cur[Number(t)];
    } else if (typeof cur === "object" && cur !== null && Object.hasOwn(cur, t)) {
      cur = (cur as Record<string, unknown>)[t];
    } else return undefined;
  }
  return cur;
}

function scalarText(v: unknown): string | undefined {
  if (typeof v === "string") return v;
  if (typeof v === "number" || typeof v === "boolean") return String(v);
  if (v === null) return "null";
  return undefined;
}

/** A matcher matches a scalar, or any scalar element of an array; never an object. */
function matcherMatches(m: ArgMatcher, args: unknown): boolean {
  const v = atPointer(args, m.tokens);
  const values = Array.isArray(v) ? v : [v];
  return values.some((x) => {
    const s = scalarText(x);
    return s !== undefined && m.re.matcher(s).find();
  });
}

function ruleMatches(r: PolicyRule, tool: string, args: unknown): boolean {
  return matchesAny(r.tools, tool) && r.match.every((m) => matcherMatches(m, args));
}

/**
 * Decide a call.
 *
 * @example
 * ```ts
 * import { compilePolicy } from "./rules.ts";
 * import { evaluatePolicy } from "./evaluate.ts";
 * const policy = compilePolicy({ rules: [{ effect: "deny", tools: ["shell_*"] }] }, () => {})!;
 * evaluatePolicy(policy, "shell_exec_app", {}).effect; // "deny"
 * ```
 */
export function evaluatePolicy(policy: Policy, tool: string, args: unknown): PolicyDecision {
  for (const r of policy.rules) {
    if (!ruleMatches(r, tool, args)) continue;
    if (r.effect === "allow") return { effect: "allow", rule: r.index };
    return {
      effect: "deny",
      rule: r.index,
      reason: r.reason ?? `policy rule ${r.index} denies this call`,
    };
  }
  if (policy.default === "allow") return { effect: "allow", rule: null };
  return { effect: "deny", rule: null, reason: "the policy denies calls no rule allows" };
}
