/**
 * Policy rules: validation of `[plugins.policy]` (every problem reported with its key) and
 * compilation of argument patterns with RE2 (`re2js`: linear-time, no backtracking).
 *
 * ```toml
 * [plugins.policy]
 * default = "allow"                          # "allow" (default) | "deny"
 *
 * [[plugins.policy.rules]]
 * effect = "deny"                            # "allow" | "deny"
 * tools = ["shell_exec_*"]                   # published-name globs (default: every tool)
 * match = [{ pointer = "/command", pattern = "\\brm\\s+-rf\\b" }]   # all must match
 * reason = "recursive deletes are not allowed"
 * ```
 *
 * @module
 */

import { RE2JS } from "re2js";
import { type ConfigReporter, isNameGlob } from "../../lib/plugins/mod.ts";

/** Keys of `[plugins.policy]`. */
export const POLICY_KEYS = ["default", "rules"] as const;
/** Keys of one rule. */
export const RULE_KEYS = ["effect", "tools", "match", "reason"] as const;
/** Keys of one argument matcher. */
export const MATCH_KEYS = ["pointer", "pattern"] as const;
/** Most rules a policy may hold. */
export const MAX_RULES = 1000;
/** Longest pattern, in UTF-16 code units. */
export const MAX_PATTERN_UNITS = 4096;

/** An argument matcher: a JSON pointer into the arguments and an RE2 pattern. */
export interface ArgMatcher {
  /** RFC 6901 pointer, split into unescaped tokens. */
  tokens: string[];
  /** The pointer as written. */
  pointer: string;
  /** Compiled pattern (unanchored search). */
  re: RE2JS;
}

/** One compiled rule. */
export interface PolicyRule {
  /** 1-based position (for messages). */
  index: number;
  /** What a match decides. */
  effect: "allow" | "deny";
  /** Tool-name globs; absent = every tool. */
  tools?: string[];
  /** Every matcher must match. */
  match: ArgMatcher[];
  /** Reason given with a denial. */
  reason?: string;
}

/** A compiled policy. */
export interface Policy {
  /** Decision when no rule matches. */
  default: "allow" | "deny";
  /** Rules in order; the first match decides. */
  rules: PolicyRule[];
}

type Table = Record<string, unknown>;

function isTable(v: unknown): v is Table {
  return typeof v === "object" && v !== null && !Array.isArray(v) && !(v instanceof Date);
}

function unknownKeys(
  t: Table,
  allowed: readonly string[],
  at: string,
  report: ConfigReporter,
): void {
  for (const k of Object.keys(t)) {
    if (!allowed.includes(k)) {
      report(`${at}${k}`, `unknown key; allowed keys: ${allowed.join(", ")}`);
    }
  }
}

/**
 * Split a JSON pointer into unescaped tokens, or null when malformed.
 *
 * @example
 * ```ts
 * import { pointerTokens } from "./rules.ts";
 * pointerTokens("/env/A~1B"); // ["env", "A/B"]
 * pointerTokens("x"); // null
 * ```
 */
export function pointerTokens(pointer: string): string[] | null {
  if (pointer === "") return [];
  if (!pointer.startsWith("/") || /~[^01]|~$/.test(pointer)) return null;
  return pointer.slice(1).split("/").map((t) => t.replace(/~1/g, "/").replace(/~0/g, "~"));
}

function compileMatcher(m: unknown, at: string, report: ConfigReporter): ArgMatcher | undefined {
  if (!isTable(m)) {
    report(at, 'must be a table `{ pointer = "/arg", pattern = "..." }`');
    return undefined;
  }
  unknownKeys(m, MATCH_KEYS, `${at}.`, report);
  const tokens = typeof m.pointer === "string" ? pointerTokens(m.pointer) : null;
  if (tokens === null) {
    report(`${at}.pointer`, 'must be a JSON pointer such as "/command" (RFC 6901)');
  }
  if (typeof m.pattern !== "string" || m.pattern === "" || m.pattern.length > MAX_PATTERN_UNITS) {
    report(`${at}.pattern`, "must be a nonempty RE2 pattern of at most 4096 characters");
    return undefined;
  }
  let re: RE2JS;
  try {
    re = RE2JS.compile(m.pattern);
  } catch {
    report(`${at}.pattern`, "is not a valid RE2 pattern (no backreferences or lookaround)");
    return undefined;
  }
  return tokens === null ? undefined : { tokens, pointer: m.pointer as string, re };
}

function compileRule(r: unknown, i: number, report: ConfigReporter): PolicyRule | undefined {
  const at = `rules[${i}]`;
  if (!isTable(r)) {
    report(at, "must be a table (`[[plugins.policy.rules]]`)");
    return undefined;
  }
  const before = { n: 0 };
  const rep: ConfigReporter = (k, m) => (before.n++, report(k, m));
  unknownKeys(r, RULE_KEYS, `${at}.`, rep);
  if (r.effect !== "allow" && r.effect !== "deny") rep(`${at}.effect`, 'must be "allow" or "deny"');
  const tools = r.tools;
  if (
    tools !== undefined &&
    (!Array.isArray(tools) || tools.length === 0 ||
      !tools.every((g) => typeof g === "string" && isNameGlob(g)))
  ) {
    rep(`${at}.tools`, "must be a nonempty array of tool-name globs ([a-z0-9_-] with `*` and `?`)");
  }
  if (r.reason !== undefined && (typeof r.reason !== "string" || r.reason.length > 1000)) {
    rep(`${at}.reason`, "must be a string of at most 1000 characters");
  }
  const match: ArgMatcher[] = [];
  if (r.match !== undefined && !Array.isArray(r.match)) {
    rep(`${at}.match`, "must be an array of matchers");
  } else {(r.match as unknown[] | undefined)?.forEach((m, j) => {
      const c = compileMatcher(m, `${at}.match[${j}]`, rep);
      if (c) match.push(c);
    });}
  if (before.n > 0) return undefined;
  return {
    index: i + 1,
    effect: r.effect as "allow" | "deny",
    ...(tools ? { tools: tools as string[] } : {}),
    match,
    ...(typeof r.reason === "string" ? { reason: r.reason } : {}),
  };
}

/**
 * Validate and compile a policy configuration; problems go to `report`. Returns null when
 * there was any problem.
 *
 * @example
 * ```ts
 * import { compilePolicy } from "./rules.ts";
 * const p = compilePolicy({ rules: [{ effect: "deny", tools: ["shell_exec_*"] }] }, () => {});
 * p?.rules.length; // 1
 * ```
 */
export function compilePolicy(
  config: Readonly<Record<string, unknown>>,
  report: ConfigReporter,
): Policy | null {
  let problems = 0;
  const rep: ConfigReporter = (k, m) => (problems++, report(k, m));
  unknownKeys(config as Table, POLICY_KEYS, "", rep);
  const def = config.default ?? "allow";
  if (def !== "allow" && def !== "deny") rep("default", 'must be "allow" or "deny"');
  const raw = config.rules ?? [];
  const rules: PolicyRule[] = [];
  if (!Array.isArray(raw)) rep("rules", "must be an array of tables (`[[plugins.policy.rules]]`)");
  else if (raw.length > MAX_RULES) {
    rep("rules", `has ${raw.length} rules; at most ${MAX_RULES} are allowed`);
  } else {raw.forEach((r, i) => {
      const c = compileRule(r, i, rep);
      if (c) rules.push(c);
    });}
  return problems > 0 ? null : { default: def as "allow" | "deny", rules };
}
