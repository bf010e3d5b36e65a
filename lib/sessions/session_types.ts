/**
 * The shapes a tool session shows its callers: its phase, a bound call's gate, and what a
 * bound call gets from it.
 *
 * @module
 */

import type { ToolResult } from "../results/types.ts";
import type { Confinement } from "../sandbox/confine.ts";
import type { BoundHooks } from "./session_command.ts";

/** Lifecycle phase of a session. */
export type SessionPhase =
  | "idle"
  | "starting"
  | "ready"
  | "failed"
  | "ended"
  | "closing"
  | "closed";

/** Whether a bound call may proceed, or the error it returns instead. */
export type Gate = { ok: true } | { ok: false; result: ToolResult };

/** What a bound call gets from its session. */
export interface BoundRun {
  /** ARTIFACTIZE_SESSION_DIR and TOOLHOST_SESSION_DIR. */
  env: Record<string, string>;
  /** Aborts when the caller cancels, the session ends or the registry closes. */
  signal: AbortSignal;
  /** Where the call's private output/tmp directories go (the session root). */
  callsDir: string;
  /** Journal hooks for the call's process group. */
  hooks: BoundHooks;
  /**
   * The session's confinement for its bound calls (the session dir writable, the
   * harness's network namespace joined), when the session is confined.
   */
  confinement?: Confinement;
}
