/**
 * Names, descriptions and input schemas of the two artifact tools.
 *
 * @module
 */

/** Name of the tool that reads one field of an artifact in full, part by part. */
export const GET_ARTIFACT_FIELD = "get_artifact_field";

/** Name of the tool that searches text across this conversation's artifacts. */
export const SEARCH_ARTIFACT_CONTENT = "search_artifact_content";

/** Default `max_chars` of get_artifact_field. */
export const DEFAULT_MAX_CHARS = 10000;
/** Default `max_results` of search_artifact_content. */
export const DEFAULT_MAX_RESULTS = 10;
/** Default `context_chars` of search_artifact_content. */
export const DEFAULT_CONTEXT_CHARS = 200;

/** A listed artifact tool: same shape as a registry tool listing. */
export interface ArtifactToolSpec {
  /** Final tool name. */
  name: string;
  /** Model-facing description. */
  description: string;
  /** Input JSON Schema (type object, no additional properties). */
  inputSchema: Record<string, unknown>;
}

const REF = {
  type: "string",
  minLength: 1,
  description: "Reference (id) of an artifact, as shown in an `[artifact] id=...` line.",
};

/**
 * Input schema of get_artifact_field.
 *
 * @example
 * ```ts
 * import { GET_ARTIFACT_FIELD_SCHEMA } from "./specs.ts";
 * console.log(GET_ARTIFACT_FIELD_SCHEMA.required); // ["artifact_ref", "field"]
 * ```
 */
export const GET_ARTIFACT_FIELD_SCHEMA = {
  type: "object",
  properties: {
    artifact_ref: REF,
    field: {
      type: "string",
      minLength: 1,
      description: "Field name in snake_case or camelCase: id, schema, media_type, sha256, " +
        "size_bytes, summary or content (the artifact's text).",
    },
    offset: {
      type: "integer",
      minimum: 0,
      description: "First character to return, in UTF-16 code units (default 0).",
    },
    max_chars: {
      type: "integer",
      minimum: 1,
      description: `Maximum characters to return (default ${DEFAULT_MAX_CHARS}).`,
    },
  },
  required: ["artifact_ref", "field"],
  additionalProperties: false,
} as const;

/**
 * Input schema of search_artifact_content.
 *
 * @example
 * ```ts
 * import { SEARCH_ARTIFACT_CONTENT_SCHEMA } from "./specs.ts";
 * console.log(SEARCH_ARTIFACT_CONTENT_SCHEMA.required); // ["query"]
 * ```
 */
export const SEARCH_ARTIFACT_CONTENT_SCHEMA = {
  type: "object",
  properties: {
    query: {
      type: "string",
      minLength: 1,
      description: "Text to find: exact substring, case ignored.",
    },
    artifact_ref: { ...REF, description: "Search only this artifact." },
    artifact_type: {
      type: "string",
      minLength: 1,
      description: "Search only artifacts whose media type contains this word (e.g. json, text).",
    },
    max_results: {
      type: "integer",
      minimum: 1,
      description: `Maximum matches to return (default ${DEFAULT_MAX_RESULTS}).`,
    },
    context_chars: {
      type: "integer",
      minimum: 0,
      description:
        `Characters of context on each side of a match (default ${DEFAULT_CONTEXT_CHARS}).`,
    },
  },
  required: ["query"],
  additionalProperties: false,
} as const;

/**
 * Both artifact tools as listings, in a fixed order. Every agent eval lists them without
 * declaring them.
 *
 * @example
 * ```ts
 * import { ARTIFACT_TOOL_SPECS } from "./specs.ts";
 * console.log(ARTIFACT_TOOL_SPECS.map((t) => t.name)); // ["get_artifact_field", "search_artifact_content"]
 * ```
 */
export const ARTIFACT_TOOL_SPECS: readonly ArtifactToolSpec[] = Object.freeze([
  {
    name: GET_ARTIFACT_FIELD,
    description: "Read one field of an artifact from this conversation in full, by its " +
      "reference. Long fields come back in parts of at most max_chars characters starting " +
      "at offset; the result gives total_length and has_more. Use field `content` for the " +
      "artifact's text.",
    inputSchema: GET_ARTIFACT_FIELD_SCHEMA as unknown as Record<string, unknown>,
  },
  {
    name: SEARCH_ARTIFACT_CONTENT,
    description: "Find text (exact, case ignored) in every text field of this " +
      "conversation's artifacts, including their content. Returns each match's artifact " +
      "reference, field, position and a snippet with context_chars of text on each side.",
    inputSchema: SEARCH_ARTIFACT_CONTENT_SCHEMA as unknown as Record<string, unknown>,
  },
]);

/**
 * Whether `name` is one of the artifact tools' final names (declaring one is an error).
 *
 * @example
 * ```ts
 * import { isArtifactToolName } from "./specs.ts";
 * isArtifactToolName("get_artifact_field"); // true
 * ```
 */
export function isArtifactToolName(name: string): boolean {
  return name === GET_ARTIFACT_FIELD || name === SEARCH_ARTIFACT_CONTENT;
}
