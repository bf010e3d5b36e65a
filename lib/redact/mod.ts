/**
 * Protected values: their forms, the redactor, the result boundary and the streaming
 * redactor spill files are written through.
 *
 * @example
 * ```ts
 * import { Redactor, redactResult } from "./mod.ts";
 * const r = new Redactor();
 * r.add("s3cr3t-token");
 * redactResult(r, { content: [{ type: "text", text: "s3cr3t-token" }], isError: false });
 * ```
 *
 * @module
 */

export { valueForms } from "./forms.ts";
export { Redactor } from "./redactor.ts";
export { redactResult, WITHHELD_IMAGE, WITHHELD_RESULT } from "./result.ts";
export { type Protector, REDACTED } from "./types.ts";
export { protectedHead, protectedTextHead } from "./head.ts";
export { StreamingRedactor } from "./stream.ts";
export { type RedactedCopy, redactedCopy } from "./copy.ts";
