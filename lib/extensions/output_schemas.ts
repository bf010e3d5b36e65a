/**
 * What the SDK `Client` does with the `outputSchema`s an extension server lists: nothing.
 * By default it compiles each one with its own ajv at `tools/list` (native, backtracking
 * `pattern` regexes; one schema that does not compile fails the whole listing) and runs
 * it on every result's `structuredContent`, on toolhost's event loop. Both the schema and
 * the content come from the same server, so the check proves nothing about a hostile one,
 * while `"pattern": "^(a+)+$"` against `"aaa…!"` stalls every call and session of the
 * process. toolhost bounds and normalizes the result itself (inbound_result.ts).
 *
 * @module
 */

// @ts-types="@modelcontextprotocol/sdk/validation"
import type {
  JsonSchemaValidator,
  jsonSchemaValidator,
} from "@modelcontextprotocol/sdk/validation";

/**
 * A validator provider that compiles nothing and accepts every value.
 *
 * @example
 * ```ts
 * import { UNCHECKED_OUTPUT } from "./output_schemas.ts";
 * UNCHECKED_OUTPUT.getValidator({ type: "object" })({ n: 1 }).valid; // true
 * ```
 */
export const UNCHECKED_OUTPUT: jsonSchemaValidator = {
  getValidator<T>(): JsonSchemaValidator<T> {
    return (input: unknown) => ({ valid: true, data: input as T, errorMessage: undefined });
  },
};
