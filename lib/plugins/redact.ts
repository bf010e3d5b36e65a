/**
 * Redaction of registered values (protected values and anything else a plugin marks) from
 * results, error texts and log lines: the plugins' view of `lib/redact` (every form a value
 * takes, windows, bytes, the result boundary).
 *
 * @module
 */

export { Redactor } from "../redact/redactor.ts";
export { REDACTED } from "../redact/types.ts";
