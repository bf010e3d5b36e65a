/**
 * The goals `deno task bench --check` judges: each section reports the ratio it measured
 * for a goal (or why it could not), and the runner prints every goal of the sections it
 * ran with `met` / `NOT met` / `SKIP (reason)`, exiting 1 when one is not met.
 *
 * @module
 */

/** One goal: a ratio (or an added time) and its bound. */
export interface GoalSpec {
  /** Stable id, e.g. `cold-start.version-sea`. */
  id: string;
  /** The section that measures it. */
  section: string;
  /** What is compared, e.g. "SEA `--version` / `node -e 0`". */
  label: string;
  /** The bound. */
  limit: number;
  /** `max`: the value must be at most `limit`; `min`: at least. */
  kind: "max" | "min";
  /** Unit of the value: a ratio (`x`) or milliseconds (`ms`). */
  unit: "x" | "ms";
}

/** Every goal of issue 19 (and issue 3's pinning goal), in report order. */
export const GOALS: readonly GoalSpec[] = [
  g("cold-start.version-sea", "cold-start", "SEA `--version` / `node -e 0`", 1.3),
  g("cold-start.version-compiled", "cold-start", "deno compile `--version` / `deno eval 0`", 1.3),
  g("cold-start.check-sea", "cold-start", "SEA `tools check` (examples) / `node -e 0`", 2),
  g("cold-start.serve-sea", "cold-start", "SEA `serve` launch → first tools/list / `node -e 0`", 2),
  g("process.json-call", "process", "json command-tool call / raw spawn", 1.3),
  g("process.json-call-added", "process", "json command-tool call, time added to raw spawn", 3, {
    unit: "ms",
  }),
  g("sessions.kit-added", "sessions", "harness-kit start-to-ready, time added", 20, {
    unit: "ms",
  }),
  g("builtins.grep-class-run", "builtins", "grep `[A-Z]+\\d+` / `rg -j1`", 2),
  g("builtins.grep-word-digit", "builtins", "grep `\\w+\\d` / `rg -j1`", 2),
  g("builtins.grep-uuid-prefix", "builtins", "grep `[0-9a-f]{8}-[0-9a-f]{4}` / `rg -j1`", 2),
  g("pins.directory", "pins", "pinPath 10,000 files / find|sort|xargs sha256sum", 1),
  g("pins.hash-wasm", "pins", "pinPath throughput / hash-wasm (issue 3)", 3, { kind: "min" }),
  g("confine.true-ratio", "confine", "confined `true` (warm sandbox) / unconfined", 1.5),
  g("confine.true-added", "confine", "confined `true` (warm sandbox), time added", 5, {
    unit: "ms",
  }),
  g("mcp.server-cpu", "mcp", "serve CPU per 4 KiB read / server-filesystem's", 0.5),
  g("mcp.sdk-64", "mcp", "SDK read round trips, 64 B: toolhost / server-filesystem", 1, {
    kind: "min",
  }),
  g("mcp.sdk-4096", "mcp", "SDK read round trips, 4 KiB: toolhost / server-filesystem", 1, {
    kind: "min",
  }),
  g("mcp.sdk-16384", "mcp", "SDK read round trips, 16 KiB: toolhost / server-filesystem", 1, {
    kind: "min",
  }),
];

function g(
  id: string,
  section: string,
  label: string,
  limit: number,
  opts: { kind?: "max" | "min"; unit?: "x" | "ms" } = {},
): GoalSpec {
  return { id, section, label, limit, kind: opts.kind ?? "max", unit: opts.unit ?? "x" };
}

/** What a section measured for a goal. */
export type Outcome = { value: number } | { skip: string };

const outcomes = new Map<string, Outcome>();

function spec(id: string): GoalSpec {
  const s = GOALS.find((x) => x.id === id);
  if (!s) throw new Error(`unknown bench goal ${id}`);
  return s;
}

/**
 * Record the value measured for goal `id` and return its verdict text for the section's
 * own report line.
 *
 * @example
 * ```ts
 * import { reportGoal } from "./goals.ts";
 * console.log(reportGoal("pins.directory", 0.8)); // "goal ≤ 1x: met"
 * ```
 */
export function reportGoal(id: string, value: number): string {
  const s = spec(id);
  outcomes.set(id, { value });
  return `goal ${s.kind === "max" ? "≤" : "≥"} ${s.limit}${s.unit === "ms" ? " ms" : "x"}: ${
    met(s, value) ? "met" : "NOT met"
  }`;
}

/**
 * Record that goal `id` could not be measured here, and why (a missing anchor, a binary
 * that cannot be built).
 *
 * @example
 * ```ts
 * import { skipGoal } from "./goals.ts";
 * skipGoal("cold-start.version-compiled", "deno compile needs denort, not downloadable here");
 * ```
 */
export function skipGoal(id: string, reason: string): void {
  spec(id);
  outcomes.set(id, { skip: reason });
}

function met(s: GoalSpec, value: number): boolean {
  return s.kind === "max" ? value <= s.limit : value >= s.limit;
}

/**
 * The goal summary for the sections that ran: one line per goal, and whether any goal
 * was measured and not met. A goal of a section that ran but did not report it is
 * `SKIP (not measured)`; of a section that failed, `SKIP (section failed)`.
 *
 * @example
 * ```ts
 * import { goalSummary } from "./goals.ts";
 * const { lines, failed } = goalSummary(new Set(["pins"]), new Set());
 * ```
 */
export function goalSummary(
  ran: ReadonlySet<string>,
  failedSections: ReadonlySet<string>,
): { lines: string[]; failed: boolean } {
  const lines: string[] = [];
  let failed = false;
  for (const s of GOALS) {
    if (!ran.has(s.section)) continue;
    const o = outcomes.get(s.id);
    const bound = `${s.kind === "max" ? "≤" : "≥"} ${s.limit}${s.unit === "ms" ? " ms" : "x"}`;
    let verdict: string;
    if (o && "value" in o) {
      const ok = met(s, o.value);
      failed ||= !ok;
      const v = s.unit === "ms" ? `${o.value.toFixed(1)} ms` : `${o.value.toFixed(2)}x`;
      verdict = `${v.padStart(9)}  ${bound.padEnd(8)} ${ok ? "met" : "NOT met"}`;
    } else {
      const why = o?.skip ?? (failedSections.has(s.section) ? "section failed" : "not measured");
      verdict = `${"-".padStart(9)}  ${bound.padEnd(8)} SKIP (${why})`;
    }
    lines.push(`  ${s.label.padEnd(58)} ${verdict}`);
  }
  return { lines, failed };
}
