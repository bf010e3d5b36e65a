/**
 * Static facts about each built-in tool: its input schema, whether it takes fixed
 * `args`, and its default description. Used by declaration validation and listing;
 * the runtime lives beside this file.
 *
 * @module
 */

import type { BuiltinName } from "../workspace/types.ts";
import { NATIVE_SPECS } from "../native/specs.ts";

export type { BuiltinSpec, TargetRule } from "./builtin_spec.ts";
import type { BuiltinSpec } from "./builtin_spec.ts";

const LOGICAL_PATH = { type: "string", minLength: 1, maxLength: 4096 } as const;
const PATTERN = { type: "string", minLength: 1, maxLength: 4096 } as const;

/** The empty-arguments schema (also used by fixed-target built-ins). */
export const EMPTY_OBJECT_SCHEMA: Record<string, unknown> = Object.freeze({
  type: "object",
  additionalProperties: false,
});

/**
 * Every built-in, by name.
 *
 * @example
 * ```ts
 * import { BUILTIN_SPECS } from "./specs.ts";
 * console.log(BUILTIN_SPECS.read.target); // "model-or-fixed"
 * ```
 */
export const BUILTIN_SPECS: Record<BuiltinName, BuiltinSpec> = {
  read: {
    target: "model-or-fixed",
    fixedArgs: [1, 1],
    modelSchema: {
      type: "object",
      properties: {
        path: { ...LOGICAL_PATH, description: "Logical path of a file, relative to the Artifact." },
        line: { type: "integer", minimum: 1, description: "1-based first line (default 1)." },
        limit: {
          type: "integer",
          minimum: 1,
          maximum: 1000000,
          description: "Maximum number of lines (default 2000).",
        },
      },
      required: ["path"],
      additionalProperties: false,
    },
    description: "Read lines of a file in {artifactName}.",
  },
  list: {
    target: "model-or-fixed",
    fixedArgs: [1, 1],
    modelSchema: {
      type: "object",
      properties: {
        path: { ...LOGICAL_PATH, description: "Logical folder path (default: the Artifact root)." },
      },
      additionalProperties: false,
    },
    description: "List the entries of a folder in {artifactName}.",
  },
  glob: {
    target: "model",
    fixedArgs: [0, 0],
    modelSchema: {
      type: "object",
      properties: {
        pattern: { ...PATTERN, description: "Glob: `*` within a component, `**` across folders." },
        path: { ...LOGICAL_PATH, description: "Folder to search (default: the Artifact root)." },
      },
      required: ["pattern"],
      additionalProperties: false,
    },
    description: "Find files in {artifactName} whose relative paths match a glob.",
  },
  grep: {
    target: "model",
    fixedArgs: [0, 0],
    modelSchema: {
      type: "object",
      properties: {
        pattern: { ...PATTERN, description: "Regular expression (Rust regex / RE2 syntax)." },
        path: { ...LOGICAL_PATH, description: "File or folder to search (default: the root)." },
        glob: { ...PATTERN, description: "Only search files whose relative path matches." },
      },
      required: ["pattern"],
      additionalProperties: false,
    },
    description: "Search file contents in {artifactName} with a regular expression.",
  },
  view_image: {
    target: "model",
    fixedArgs: [0, 0],
    modelSchema: {
      type: "object",
      properties: { path: { ...LOGICAL_PATH, description: "PNG, JPEG or WebP file." } },
      required: ["path"],
      additionalProperties: false,
    },
    description: "View an image file in {artifactName}.",
  },
  section: {
    target: "fixed",
    fixedArgs: [2, 2],
    modelSchema: EMPTY_OBJECT_SCHEMA,
    description: "Read a section of a document in {artifactName}.",
  },
  help: {
    target: "fixed",
    fixedArgs: [1, 1],
    modelSchema: EMPTY_OBJECT_SCHEMA,
    description: "Show the help of a program of {artifactName}.",
  },
  graph: {
    target: "empty",
    fixedArgs: [0, 0],
    modelSchema: EMPTY_OBJECT_SCHEMA,
    description: "Show the structure of the current project.",
  },
  // The native catalog: declared like built-ins, run by lib/native.
  ...NATIVE_SPECS,
};

/**
 * The input schema a declared built-in publishes: the model schema, or the empty
 * object schema when the declaration fixes its target.
 *
 * @example
 * ```ts
 * import { builtinInputSchema } from "./specs.ts";
 * builtinInputSchema("read", undefined); // the read schema
 * builtinInputSchema("read", ["README.md"]); // {type:"object",additionalProperties:false}
 * ```
 */
export function builtinInputSchema(
  builtin: BuiltinName,
  args: string[] | undefined,
): Record<string, unknown> {
  const spec = BUILTIN_SPECS[builtin];
  // A plugin tool's name is not a built-in; its schema comes from the declaration.
  if (spec === undefined) return EMPTY_OBJECT_SCHEMA;
  if (spec.target === "model") return spec.modelSchema;
  if (spec.target === "model-or-fixed" && args === undefined) return spec.modelSchema;
  return EMPTY_OBJECT_SCHEMA;
}
