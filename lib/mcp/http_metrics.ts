/**
 * `GET /metrics` of `serve --http`: Prometheus text exposition by `prom-client`, from a
 * registry of its own per server (never prom-client's global default, so a library user's
 * metrics are not polluted). Labels carry tool names only — names the session's client was
 * shown by `tools/list`, at most {@link MAX_TOOL_LABELS} distinct; anything else is
 * `unknown` (never listed: possibly a made-up name) or `other` (past the cap) —
 * and call outcomes; extension restarts by declared extension name (at most
 * {@link MAX_EXTENSION_LABELS}), lock mismatches by what differed (`tool`, `program`,
 * `extension`) and limit breaches by limit (`memory`, `cpu`, `processes`), heard through
 * `withCallEvents` around every call, listing and close of an instrumented source; never
 * argument values, paths or protected values.
 *
 * @module
 */

import { Counter, Gauge, Histogram, Registry } from "prom-client";
import type { ToolSource } from "./tool_source.ts";
import { type CallEvent, withCallEvents } from "../events/call_events.ts";

/** Path of the exposition. */
export const METRICS_PATH = "/metrics";
/** Most distinct `tool` label values; further names count as `other`. */
export const MAX_TOOL_LABELS = 256;
/** Most distinct `extension` label values; further names count as `other`. */
export const MAX_EXTENSION_LABELS = 64;

/** What the metrics read from the server when scraped. */
export interface MetricsProbes {
  /** Live MCP sessions. */
  liveSessions(): number;
}

/**
 * The metrics of one HTTP server.
 *
 * @example
 * ```ts
 * import { ServeMetrics } from "./http_metrics.ts";
 * const m = new ServeMetrics({ liveSessions: () => 0 });
 * console.log((await m.expose()).includes("toolhost_mcp_sessions"));
 * ```
 */
export class ServeMetrics {
  /** The per-server registry. */
  readonly registry: Registry = new Registry();
  readonly #calls: Counter<"tool" | "outcome">;
  readonly #duration: Histogram<"tool">;
  readonly #cleanupFailures: Counter;
  readonly #restarts: Counter<"extension">;
  readonly #lockMismatches: Counter<"what">;
  readonly #breaches: Counter<"limit">;
  readonly #extensions = new Set<string>();
  readonly #hear = (e: CallEvent) => this.#count(e);
  readonly #tools = new Set<string>();
  readonly #open = new Set<ToolSource>();

  /** Metrics reading `probes` at scrape time. */
  constructor(probes: MetricsProbes) {
    const registers = [this.registry];
    this.#calls = new Counter({
      name: "toolhost_tool_calls_total",
      help: "Tool calls by tool and outcome (ok, error, internal).",
      labelNames: ["tool", "outcome"],
      registers,
    });
    this.#duration = new Histogram({
      name: "toolhost_tool_call_duration_seconds",
      help: "Tool call wall time, seconds.",
      labelNames: ["tool"],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300],
      registers,
    });
    this.#cleanupFailures = new Counter({
      name: "toolhost_cleanup_failures_total",
      help: "MCP sessions whose cleanup (tool sessions, extension servers) was not confirmed.",
      registers,
    });
    this.#restarts = new Counter({
      name: "toolhost_extension_restarts_total",
      help: "Extension servers restarted after they died, by extension.",
      labelNames: ["extension"],
      registers,
    });
    this.#lockMismatches = new Counter({
      name: "toolhost_lock_mismatches_total",
      help: "Calls refused (LOCK_MISMATCH) because a tool, a program or an extension " +
        "differs from toolhost.lock, by what differed.",
      labelNames: ["what"],
      registers,
    });
    this.#breaches = new Counter({
      name: "toolhost_limit_breaches_total",
      help: "Calls and tool sessions ended by a resource limit, by limit.",
      labelNames: ["limit"],
      registers,
    });
    // Every bounded series exists from the start, at 0.
    for (const what of ["tool", "program", "extension"]) this.#lockMismatches.inc({ what }, 0);
    for (const limit of ["memory", "cpu", "processes"]) this.#breaches.inc({ limit }, 0);
    new Gauge({
      name: "toolhost_mcp_sessions",
      help: "Live MCP sessions.",
      registers,
      collect() {
        this.set(probes.liveSessions());
      },
    });
    const open = this.#open;
    new Gauge({
      name: "toolhost_tool_sessions_running",
      help: "Tool sessions started and not yet stopped, over every live MCP session.",
      registers,
      collect() {
        let n = 0;
        for (const s of open) n += s.toolSessionsRunning?.() ?? 0;
        this.set(n);
      },
    });
  }

  /** The Prometheus content type. */
  get contentType(): string {
    return this.registry.contentType;
  }

  /** The text exposition. */
  expose(): Promise<string> {
    return this.registry.metrics();
  }

  /**
   * `source` with its calls counted and timed, its tool sessions counted until it is
   * closed, and a close whose cleanup was not confirmed counted as a cleanup failure.
   */
  instrument(source: ToolSource): ToolSource {
    this.#open.add(source);
    let closing: Promise<void> | undefined;
    const close = () =>
      closing ??= withCallEvents(this.#hear, () => source.close()).then(() => {
        this.#open.delete(source);
      }, (e) => {
        this.#open.delete(source);
        this.#cleanupFailures.inc();
        throw e;
      });
    // Names the client was shown by tools/list; listing here would start extension servers.
    let listed = new Set<string>();
    const list: ToolSource["list"] = async () => {
      const tools = await withCallEvents(this.#hear, () => source.list());
      listed = new Set(tools.map((t) => t.name));
      return tools;
    };
    const call: ToolSource["call"] = async (name, args, opts) => {
      const started = performance.now();
      let outcome = "internal";
      try {
        const result = await withCallEvents(this.#hear, () => source.call(name, args, opts));
        outcome = result.isError ? "error" : "ok";
        return result;
      } finally {
        const tool = this.#label(name, listed);
        this.#calls.inc({ tool, outcome });
        this.#duration.observe({ tool }, (performance.now() - started) / 1000);
      }
    };
    return Object.assign(Object.create(source) as ToolSource, { list, call, close });
  }

  #count(e: CallEvent): void {
    if (e.kind === "limit_breach") this.#breaches.inc({ limit: e.limit });
    else if (e.kind === "lock_mismatch") this.#lockMismatches.inc({ what: e.what });
    else {
      const known = this.#extensions.has(e.extension);
      if (!known && this.#extensions.size < MAX_EXTENSION_LABELS) this.#extensions.add(e.extension);
      this.#restarts.inc({ extension: this.#extensions.has(e.extension) ? e.extension : "other" });
    }
  }

  #label(name: string, listed: Set<string>): string {
    if (!listed.has(name)) return "unknown";
    if (this.#tools.has(name)) return name;
    if (this.#tools.size >= MAX_TOOL_LABELS) return "other";
    this.#tools.add(name);
    return name;
  }
}
