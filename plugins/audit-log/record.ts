/**
 * The audit record of one call: identifies the arguments by the SHA-256 of their
 * canonical JSON (sorted keys) — never their values — and says how the call ended.
 *
 * @module
 */

import { type CallEndedInfo, canonicalSha256 } from "../../lib/plugins/mod.ts";

/** One line of `audit.log`. */
export interface AuditRecord {
  /** ISO time the call ended. */
  time: string;
  /** Call id (shared with the operator log). */
  callId: string;
  /** Eval id, or null. */
  eval: string | null;
  /** Published tool name. */
  tool: string;
  /** Declaring Artifact, or null. */
  artifactId: string | null;
  /** Lowercase hex SHA-256 of the canonical JSON of the admitted arguments. */
  argsSha256: string;
  /** Wall time in ms. */
  durationMs: number;
  /** `ok`, `error` or `denied`. */
  outcome: "ok" | "error" | "denied";
  /** Bytes of the final result's JSON. */
  resultBytes: number;
  /** Tool session of a bound call, or null. */
  session: string | null;
}

/**
 * Build the audit record of a finished call.
 *
 * @example
 * ```ts
 * import { auditRecord } from "./record.ts";
 * // auditRecord(info).argsSha256 → "9f86d0…"
 * ```
 */
export function auditRecord(info: CallEndedInfo, now: Date = new Date()): AuditRecord {
  return {
    time: now.toISOString(),
    callId: info.callId,
    eval: info.eval ?? null,
    tool: info.tool,
    artifactId: info.artifactId ?? null,
    argsSha256: canonicalSha256(info.args),
    durationMs: info.durationMs,
    outcome: info.outcome,
    resultBytes: info.resultBytes,
    session: info.session ?? null,
  };
}
