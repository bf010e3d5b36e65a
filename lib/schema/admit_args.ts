/**
 * Admission of a call's arguments: a JSON object of at most 64 KiB serialized, valid
 * against the tool's schema. Errors show at most five escaped, bounded instance/schema
 * paths (under 4 KiB in all) and never an argument value.
 *
 * @module
 */

import { Buffer } from "node:buffer";
import { errorResult, type ToolResult } from "../results/types.ts";
import type { ErrorObject } from "ajv";
import { ToolhostError } from "../errors/errors.ts";
import { LIMITS } from "../results/types.ts";
import type { CompiledSchema } from "./compile_schema.ts";
import { nestingWithin } from "../results/json_depth.ts";
import { errorHint } from "./error_hints.ts";

/** Arguments were rejected before anything ran. */
export class InvalidArguments extends ToolhostError {
  /** Create an admission error (message already value-free). */
  constructor(message: string) {
    super("INVALID_ARGUMENTS", message);
  }
}

/** Max paths shown in a validation error. */
export const MAX_ERROR_PATHS = 5;
/** Max UTF-16 length of a whole validation message (below 4 KiB). */
export const MAX_ERROR_CHARS = 3800;
const MAX_SEGMENT = 120;

/**
 * Admit `args` for a compiled schema: returns the args (unchanged; defaults are never
 * applied) or throws {@link InvalidArguments}.
 *
 * @example
 * ```ts
 * import { compileSchema } from "./compile_schema.ts";
 * import { admitArgs } from "./admit_args.ts";
 * const c = compileSchema({ type: "object", additionalProperties: false });
 * admitArgs({}, c); // {}
 * ```
 */
export function admitArgs(args: unknown, compiled: CompiledSchema): Record<string, unknown> {
  if (typeof args !== "object" || args === null || Array.isArray(args)) {
    throw new InvalidArguments("Arguments must be a JSON object.");
  }
  let serialized: string;
  try {
    serialized = JSON.stringify(args);
  } catch {
    throw new InvalidArguments("Arguments must be JSON-serializable.");
  }
  const bytes = Buffer.byteLength(serialized); // UTF-8 bytes, without encoding a copy
  if (bytes > LIMITS.maxArgsBytes) {
    throw new InvalidArguments(
      `Arguments are ${bytes} bytes serialized; the limit is ${LIMITS.maxArgsBytes} bytes (64 KiB).`,
    );
  }
  // Validate a private copy so the schema can never observe or mutate the caller's object.
  const copy = JSON.parse(serialized) as Record<string, unknown>;
  if (!nestingWithin(copy, MAX_ARGS_DEPTH)) {
    throw new InvalidArguments(`Arguments nest deeper than ${MAX_ARGS_DEPTH} levels.`);
  }
  if (compiled.validate(copy) === true) return copy;
  throw new InvalidArguments(
    formatErrors(compiled.validate.errors ?? [], compiled.knownKeys, copy, compiled.schema),
  );
}

/** Deepest nesting of call arguments (deeper would overflow recursive validators). */
export const MAX_ARGS_DEPTH = 256;

/** Admitted arguments, or the error result a caller returns as it is. */
export type Admission =
  | { ok: true; args: Record<string, unknown> }
  | { ok: false; result: ToolResult };

/**
 * {@link admitArgs} for a call: refused arguments become the error result every tool
 * kind returns (its message names no values); anything else still throws.
 *
 * @example
 * ```ts
 * import { compileSchema } from "./compile_schema.ts";
 * import { admitOrRefuse } from "./admit_args.ts";
 * const a = admitOrRefuse([], compileSchema({ type: "object" }));
 * // { ok: false, result: { content: [{ type: "text", text: "Arguments must be a JSON object." }], isError: true } }
 * ```
 */
export function admitOrRefuse(args: unknown, compiled: CompiledSchema): Admission {
  try {
    return { ok: true, args: admitArgs(args, compiled) };
  } catch (e) {
    if (e instanceof InvalidArguments) return { ok: false, result: errorResult(e.message) };
    throw e;
  }
}

/**
 * Format ajv errors as value-free lines: `- at instancePath (schema schemaPath): keyword:
 * what to fix` — the fix (missing property, expected type, violated limit, allowed values)
 * taken from the schema, never from the arguments.
 *
 * @example
 * ```ts
 * import { formatErrors } from "./admit_args.ts";
 * formatErrors([], new Set()); // "Arguments do not match the tool's input schema."
 * ```
 *
 * @param data The validated instance, when known: numeric segments are then shown only
 *   where they index an array (an object key that looks like a number stays hidden).
 * @param schema The root schema, when known: lets an unexpected-property error list the
 *   declared properties.
 */
export function formatErrors(
  errors: ErrorObject[],
  knownKeys: Set<string>,
  data?: unknown,
  schema?: unknown,
): string {
  const head = "Arguments do not match the tool's input schema";
  if (errors.length === 0) return `${head}.`;
  const shown = errors.slice(0, MAX_ERROR_PATHS).map((e) => {
    const inst = safePointer(e.instancePath, knownKeys, data) || "/";
    const hint = errorHint(e, schema);
    return `- at ${inst} (schema ${escapeSegment(e.schemaPath)}): ${e.keyword}${
      hint ? `: ${hint}` : ""
    }`;
  });
  const more = errors.length > MAX_ERROR_PATHS
    ? `\n(${errors.length - MAX_ERROR_PATHS} more not shown)`
    : "";
  let msg = `${head}:\n${shown.join("\n")}${more}`;
  // Every segment is escaped to ASCII, so characters equal bytes: the cut keeps it < 4 KiB.
  if (msg.length > MAX_ERROR_CHARS) msg = `${msg.slice(0, MAX_ERROR_CHARS)}...`;
  return msg;
}

/** Keep pointer segments that are array indices or schema-declared names; hide the rest. */
function safePointer(pointer: string, knownKeys: Set<string>, data?: unknown): string {
  if (pointer === "") return "";
  let node = data;
  return pointer.split("/").slice(1).map((raw) => {
    const seg = raw.replace(/~1/g, "/").replace(/~0/g, "~");
    const index = /^[0-9]{1,9}$/.test(seg) && (data === undefined || Array.isArray(node));
    node = typeof node === "object" && node !== null
      ? (node as Record<string, unknown>)[seg]
      : undefined;
    if (index || knownKeys.has(seg)) return `/${escapeSegment(seg)}`;
    return "/<key>";
  }).join("");
}

/** JSON-escape a bounded segment, with every non-ASCII code unit as `\uXXXX`. */
function escapeSegment(s: string): string {
  const cut = s.length > MAX_SEGMENT ? `${s.slice(0, MAX_SEGMENT)}...` : s;
  return JSON.stringify(cut).slice(1, -1).replace(
    /[^\x20-\x7e]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}
