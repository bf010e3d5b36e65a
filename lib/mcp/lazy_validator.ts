/**
 * The JSON Schema validator an MCP SDK `Server` is given, made on first use. The SDK's
 * `Server` builds an ajv instance (with every format) in its constructor for one purpose:
 * checking a client's answer to `elicitInput`, which toolhost never sends. Building it
 * lazily takes that work off `serve`'s start-up; if it is ever asked for, it is the SDK's
 * own default validator, unchanged.
 *
 * @module
 */

// @ts-types="@modelcontextprotocol/sdk/validation/ajv"
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
// @ts-types="@modelcontextprotocol/sdk/validation"
import type {
  JsonSchemaType,
  JsonSchemaValidator,
  jsonSchemaValidator,
} from "@modelcontextprotocol/sdk/validation";

/**
 * A `jsonSchemaValidator` that builds the SDK's default (`AjvJsonSchemaValidator`) the
 * first time a validator is asked for, and hands every request to it.
 *
 * @example
 * ```ts
 * import { lazyJsonSchemaValidator } from "./lazy_validator.ts";
 * const v = lazyJsonSchemaValidator();
 * v.getValidator<{ a: number }>({ type: "object" })({ a: 1 }).valid; // true
 * ```
 */
export function lazyJsonSchemaValidator(): jsonSchemaValidator {
  let inner: AjvJsonSchemaValidator | undefined;
  return {
    getValidator<T>(schema: JsonSchemaType): JsonSchemaValidator<T> {
      inner ??= new AjvJsonSchemaValidator();
      return inner.getValidator<T>(schema);
    },
  };
}
