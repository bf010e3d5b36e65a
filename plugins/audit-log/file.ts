/**
 * Where the audit log lives: a plain file name below the state directory.
 *
 * @module
 */

import path from "node:path";

/** Default audit file name below the state directory. */
export const DEFAULT_AUDIT_FILE = "audit.log";

/** Allowed `file` values: a plain name, no `/`. */
export const AUDIT_FILE_NAME: RegExp = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

/**
 * The audit file of a configuration below a state directory.
 *
 * @example
 * ```ts
 * import { auditFile } from "./file.ts";
 * auditFile("/state", {}); // "/state/audit.log"
 * ```
 */
export function auditFile(stateDir: string, config: Readonly<Record<string, unknown>>): string {
  const name = typeof config.file === "string" ? config.file : DEFAULT_AUDIT_FILE;
  return path.join(stateDir, name);
}
