/**
 * The session supervisor of one registry: it owns that registry's tool sessions, creates
 * each lazily (an unused supervisor or session creates no directory and runs nothing),
 * and closes them all, reporting a cleanup failure as `CleanupFailed`.
 *
 * @module
 */

import { CleanupFailed, InvocationError } from "../errors/errors.ts";
import type { SessionDecl } from "../workspace/types.ts";
import { type ResolvedOptions, resolveOptions, type SupervisorOptions } from "./options.ts";
import { ToolSession } from "./session.ts";

/**
 * A registry's tool sessions.
 *
 * @example
 * ```ts
 * import { SessionSupervisor } from "./supervisor.ts";
 * const sup = new SessionSupervisor({ stopTimeoutMs: 500 });
 * console.log(sup.sessions().length); // 0: nothing started, nothing created
 * await sup.close();
 * ```
 */
export class SessionSupervisor {
  #raw: SupervisorOptions;
  #options: ResolvedOptions;
  #sessions = new Map<string, ToolSession>();
  #closing?: Promise<void>;

  /** Create an empty supervisor; creates nothing on disk. */
  constructor(options: SupervisorOptions = {}) {
    this.#options = resolveOptions(options);
    this.#raw = { ...options };
  }

  /** The effective options. */
  get options(): Readonly<ResolvedOptions> {
    return this.#options;
  }

  /**
   * Change options (e.g. a short stop bound in tests). Only before the first bound call;
   * throws `InvocationError` afterwards.
   */
  configure(options: SupervisorOptions): void {
    if (this.#sessions.size > 0 || this.#closing !== undefined) {
      throw new InvocationError("session options can only be changed before the first bound call");
    }
    const raw = { ...this.#raw, ...options };
    this.#options = resolveOptions(raw);
    this.#raw = raw;
  }

  /** Whether {@linkcode SessionSupervisor.close} was called. */
  get closed(): boolean {
    return this.#closing !== undefined;
  }

  /** The session `decl` of Artifact `artifactId`, created idle on first request. */
  session(artifactId: string, decl: SessionDecl, stateDir: string): ToolSession {
    const key = `${artifactId}/${decl.name}`;
    let s = this.#sessions.get(key);
    if (s === undefined) {
      s = new ToolSession(decl, artifactId, stateDir, this.#options);
      this.#sessions.set(key, s);
    }
    return s;
  }

  /** Every session requested so far (idle ones included). */
  sessions(): ToolSession[] {
    return [...this.#sessions.values()];
  }

  /**
   * Stop and clean up every session (in parallel). Idempotent. Rejects with one
   * `CleanupFailed` naming each session whose cleanup was not confirmed.
   */
  close(): Promise<void> {
    return (this.#closing ??= this.#close());
  }

  async #close(): Promise<void> {
    const results = await Promise.allSettled(this.sessions().map((s) => s.close()));
    const failed = results.flatMap((r) => (r.status === "rejected" ? [r.reason] : []));
    if (failed.length === 0) return;
    if (failed.length === 1 && failed[0] instanceof CleanupFailed) throw failed[0];
    throw new CleanupFailed(
      failed.map((
        e,
      ) => (e instanceof CleanupFailed ? e.message : "A tool session's cleanup failed.")).join(" "),
    );
  }
}
