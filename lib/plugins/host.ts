/**
 * The plugin host of one registry: runs every call through the `beforeCall` hooks (in
 * manifest order; the first denial wins), the executor, the `afterCall` hooks (each may
 * replace the result, which is re-validated), redaction, and the `callEnded` observers.
 * Hooks that throw or time out fail closed; their details go to the operator log.
 *
 * @module
 */

import { randomBytes } from "node:crypto";
import { errorResult, type ToolResult } from "../results/types.ts";
import type { CallEndedInfo, CallInfo, HookContext, SessionInfo } from "./api.ts";
import { withDeadline } from "./deadline.ts";
import { frozenCopy } from "./freeze.ts";
import { matchesAny } from "./name_glob.ts";
import { PluginLog } from "./plugin_log.ts";
import { cleanReason } from "./reason.ts";
import type { Redactor } from "./redact.ts";
import { resultBytes } from "../results/json_text.ts";
import { checkReplacement } from "./result_check.ts";
import { isEnvName } from "../process/env.ts";
import {
  type ActiveTool,
  type CallGrant,
  type CallSubject,
  emptyParts,
  type HookEntry,
  type HostParts,
} from "./host_parts.ts";

/**
 * The grant of a call no hook saw: no environment, and an id made only if something asks
 * (a plugin tool, a built-in-like tool); a plain built-in never does. A class: an object
 * literal with a getter is built in dictionary mode, about a microsecond per call.
 */
class QuietGrant implements CallGrant {
  readonly env: Record<string, string> = {};
  #id: string | undefined;

  get callId(): string {
    return this.#id ??= randomBytes(8).toString("hex");
  }
}

function quietGrant(): CallGrant {
  return new QuietGrant();
}

/** Deadline of observers (`callEnded`, sessions) and of `setup`. */
export const OBSERVER_TIMEOUT_MS = 10_000;
export { MAX_REASON_UNITS } from "./reason.ts";

/**
 * Hooks, observers and redaction around every call of one registry.
 *
 * @example
 * ```ts
 * import { PluginHost } from "./host.ts";
 * import { textResult } from "../results/types.ts";
 * const host = PluginHost.empty();
 * const r = await host.runCall({ tool: "x", args: {} }, undefined, () => Promise.resolve(textResult("ok")));
 * ```
 */
export class PluginHost {
  readonly #p: HostParts;
  /** The operator log (`<stateDir>/plugins.log`). */
  readonly log: PluginLog;
  #closed = false;

  /** Build a host from parts (see `openPluginHost`). */
  constructor(parts: HostParts) {
    this.#p = parts;
    this.log = new PluginLog(parts.stateDir, parts.redactor, parts.root);
  }

  /** A host with no plugins and no hooks (calls pass straight through). */
  static empty(): PluginHost {
    return new PluginHost(emptyParts("."));
  }

  /** Whether any hook, observer or redaction is registered. */
  get active(): boolean {
    const p = this.#p;
    return p.before.length + p.after.length + p.ended.length > 0 || p.redactor.active;
  }

  /** The state directory. */
  get stateDir(): string {
    return this.#p.stateDir;
  }

  /** The eval id, when opened for an eval. */
  get evalId(): string | undefined {
    return this.#p.evalId;
  }

  /** A tool of an active plugin, by tool name. */
  tool(name: string): ActiveTool | undefined {
    return this.#p.tools.get(name);
  }

  /** The always-listed tools of the active plugins, in plugin order. */
  listedTools(): { name: string; description: string; inputSchema: Record<string, unknown> }[] {
    return [...this.#p.tools.values()]
      .filter((t) => t.tool.alwaysListed === true)
      .map(({ tool }) => ({
        name: tool.name,
        description: tool.description,
        inputSchema: tool.inputSchema,
      }));
  }

  /** The redactor every result, error and log line passes through. */
  get redactor(): Redactor {
    return this.#p.redactor;
  }

  /**
   * Run one call through the hooks: `exec` runs only when every matching `beforeCall`
   * hook allowed it, and receives their environment contributions.
   */
  async runCall(
    subject: CallSubject,
    signal: AbortSignal | undefined,
    exec: (grant: CallGrant) => Promise<ToolResult>,
  ): Promise<ToolResult> {
    if (!this.active) return await exec(quietGrant());
    const startedAt = new Date();
    const info: CallInfo = Object.freeze({
      callId: randomBytes(8).toString("hex"),
      ...(this.#p.evalId ? { eval: this.#p.evalId } : {}),
      tool: subject.tool,
      ...(subject.artifactId ? { artifactId: subject.artifactId } : {}),
      ...(subject.builtin ? { builtin: subject.builtin } : {}),
      ...(subject.session ? { session: subject.session } : {}),
      args: frozenCopy(subject.args),
    });
    const gate = await this.#before(info, signal);
    let result: ToolResult;
    // A denial's text (a hook's reason) leaves through the same boundary as any result.
    if (!gate.ok) result = this.redactor.result(gate.result);
    else {
      const redacted = this.redactor.result(await exec(gate.grant));
      const after = await this.#after(redacted, info, signal);
      // A hook's replacement is redacted too; the redacted result itself needs no second pass.
      result = after === redacted ? after : this.redactor.result(after);
    }
    if (this.#p.ended.length === 0) return result;
    const outcome = !gate.ok ? "denied" : result.isError ? "error" : "ok";
    await this.#ended({
      ...info,
      outcome,
      startedAt: startedAt.toISOString(),
      durationMs: Date.now() - startedAt.getTime(),
      resultBytes: resultBytes(result),
    });
    return result;
  }

  async #before(
    info: CallInfo,
    signal: AbortSignal | undefined,
  ): Promise<{ ok: true; grant: CallGrant } | { ok: false; result: ToolResult }> {
    const env: Record<string, string> = {};
    for (const h of this.#p.before) {
      if (!matchesAny(h.tools, info.tool)) continue;
      const out = await withDeadline((s) => h.fn(ctx(info, s)), h.timeoutMs, signal);
      if (!out.ok) {
        if (out.why === "cancelled") {
          return { ok: false, result: errorResult("The call was cancelled.") };
        }
        this.log.write(h.source, "before_call", `${info.tool}: ${out.detail}; the call was denied`);
        return { ok: false, result: errorResult(beforeFailed(h.source)) };
      }
      const d = out.value;
      if (d === undefined || d === null) continue;
      if (d.decision === "deny" && typeof d.reason === "string" && d.reason.trim() !== "") {
        return { ok: false, result: errorResult(this.#denied(h.source, d.reason)) };
      }
      if (d.decision === "allow" && (d.env === undefined || mergeEnv(env, d.env))) continue;
      this.log.write(
        h.source,
        "before_call",
        `${info.tool}: invalid decision; the call was denied`,
      );
      return { ok: false, result: errorResult(beforeFailed(h.source)) };
    }
    return { ok: true, grant: { env, callId: info.callId } };
  }

  #denied(source: string, reason: string): string {
    return `The call was denied by \`${source}\`: ${cleanReason(this.redactor, reason)}`;
  }

  async #after(
    result: ToolResult,
    info: CallInfo,
    signal: AbortSignal | undefined,
  ): Promise<ToolResult> {
    let current = result;
    for (const h of this.#p.after) {
      if (!matchesAny(h.tools, info.tool)) continue;
      const seen = frozenCopy(current);
      const out = await withDeadline((s) => h.fn(seen, ctx(info, s)), h.timeoutMs, signal);
      if (!out.ok) {
        if (out.why === "cancelled") return errorResult("The call was cancelled.");
        this.log.write(
          h.source,
          "after_call",
          `${info.tool}: ${out.detail}; the result was withheld`,
        );
        return errorResult(afterFailed(h.source));
      }
      if (out.value === undefined || out.value === null) continue;
      const checked = await checkReplacement(out.value);
      if (!checked.ok) {
        this.log.write(h.source, "after_call", `${info.tool}: invalid result: ${checked.rule}`);
        return errorResult(
          `The call's result was withheld: the after_call hook \`${h.source}\` returned an ` +
            `invalid result (${checked.rule}).`,
        );
      }
      current = checked.result;
    }
    return current;
  }

  async #ended(info: CallEndedInfo): Promise<void> {
    await this.#observe(this.#p.ended, "call_ended", info);
  }

  async #observe<T>(
    hooks: HookEntry<(x: T) => void | Promise<void>>[],
    event: string,
    value: T,
  ): Promise<void> {
    await Promise.all(hooks.map(async (h) => {
      const out = await withDeadline(() => h.fn(value), h.timeoutMs);
      if (!out.ok) this.log.write(h.source, event, out.detail);
    }));
  }

  /**
   * Tell plugins a tool session started. For the session supervisor; never throws.
   *
   * @example
   * ```ts
   * // await reg.plugins.emitSessionStarted({ artifactId: "app", session: "web" });
   * ```
   */
  async emitSessionStarted(info: SessionInfo): Promise<void> {
    const v = Object.freeze({ ...(this.#p.evalId ? { eval: this.#p.evalId } : {}), ...info });
    await this.#observe(this.#p.sessionStarted, "session_started", v);
  }

  /**
   * Tell plugins a tool session ended (`reason`: stopped, exited, failed, ...). Never throws.
   *
   * @example
   * ```ts
   * // await reg.plugins.emitSessionEnded({ artifactId: "app", session: "web", reason: "stopped" });
   * ```
   */
  async emitSessionEnded(info: SessionInfo): Promise<void> {
    const v = Object.freeze({ ...(this.#p.evalId ? { eval: this.#p.evalId } : {}), ...info });
    await this.#observe(this.#p.sessionEnded, "session_ended", v);
  }

  /** Run every plugin's `onClose` callbacks (errors are logged), then close the log. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    for (const c of this.#p.closers) {
      const out = await withDeadline(() => c.fn(), OBSERVER_TIMEOUT_MS);
      if (!out.ok) this.log.write(c.source, "close", out.detail);
    }
    this.log.close();
  }
}

function ctx(info: CallInfo, signal: AbortSignal): HookContext {
  return Object.freeze({ ...info, signal });
}

function mergeEnv(into: Record<string, string>, add: unknown): boolean {
  if (typeof add !== "object" || add === null || Array.isArray(add)) return false;
  for (const [k, v] of Object.entries(add)) {
    if (!isEnvName(k) || typeof v !== "string" || v.includes("\0")) return false;
    into[k] = v;
  }
  return true;
}

/**
 * The generic denial when a `beforeCall` hook fails.
 *
 * @example
 * ```ts
 * import { beforeFailed } from "./host.ts";
 * beforeFailed("policy");
 * ```
 */
export function beforeFailed(source: string): string {
  return `The call was refused: the before_call hook \`${source}\` failed or timed out ` +
    "(details are in the operator log).";
}

/**
 * The generic error when an `afterCall` hook fails.
 *
 * @example
 * ```ts
 * import { afterFailed } from "./host.ts";
 * afterFailed("hooks.after_call[0]");
 * ```
 */
export function afterFailed(source: string): string {
  return `The call's result was withheld: the after_call hook \`${source}\` failed or timed ` +
    "out (details are in the operator log).";
}
