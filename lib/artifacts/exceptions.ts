/**
 * The artifact tools' model-facing error results. Messages never echo argument values.
 *
 * @module
 */

import { errorResult, type ToolResult } from "../results/types.ts";

/** Exception names a model sees at the start of an artifact tool's error text. */
export type ArtifactToolException =
  | "ResourceNotFoundException"
  | "InvalidInputException"
  | "SystemException";

/**
 * A refusal carrying its model-facing result; thrown inside the tools, caught at the top.
 *
 * @example
 * ```ts
 * import { ArtifactToolFailure } from "./exceptions.ts";
 * const f = new ArtifactToolFailure("InvalidInputException", "`field` is required.");
 * console.log(f.result.content[0]); // { type: "text", text: "InvalidInputException: `field` is required." }
 * ```
 */
export class ArtifactToolFailure extends Error {
  /** Exception name. */
  readonly exception: ArtifactToolException;
  /** The error result to return. */
  readonly result: ToolResult;
  /** Create a refusal. */
  constructor(exception: ArtifactToolException, message: string) {
    super(`${exception}: ${message}`);
    this.name = "ArtifactToolFailure";
    this.exception = exception;
    this.result = errorResult(`${exception}: ${message}`);
  }
}

/**
 * Shorthand for an `InvalidInputException` refusal.
 *
 * @example
 * ```ts
 * import { invalidInput } from "./exceptions.ts";
 * invalidInput("`max_results` must be an integer of at least 1.").exception; // "InvalidInputException"
 * ```
 */
export function invalidInput(message: string): ArtifactToolFailure {
  return new ArtifactToolFailure("InvalidInputException", message);
}

/**
 * Run a tool body and turn refusals into error results. Anything unexpected becomes a
 * `SystemException` with a fixed message (no values, no paths).
 *
 * @example
 * ```ts
 * import { guarded } from "./exceptions.ts";
 * import { textResult } from "../results/types.ts";
 * const res = await guarded(async () => textResult("ok"));
 * ```
 */
export async function guarded(body: () => Promise<ToolResult>): Promise<ToolResult> {
  try {
    return await body();
  } catch (e) {
    if (e instanceof ArtifactToolFailure) return e.result;
    return errorResult("SystemException: the artifact tool failed unexpectedly; retry the call.");
  }
}
