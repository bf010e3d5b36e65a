/**
 * get_artifact_field: one field of an artifact in full, part by part.
 *
 * @module
 */

import { jsonResult, LIMITS, type ToolResult } from "../results/types.ts";
import { optionalInteger, readArgs, requiredString } from "./args.ts";
import { ContentUnavailable, readArtifactText } from "./content.ts";
import { ArtifactToolFailure, guarded, invalidInput } from "./exceptions.ts";
import { ARTIFACT_FIELDS, canonicalFieldName, metadataValue } from "./fields.ts";
import { isHighSurrogateAt, jsonBytes } from "./json_size.ts";
import { DEFAULT_MAX_CHARS } from "./specs.ts";
import type { ArtifactSource, StoredArtifact } from "./types.ts";

const ARGS = ["artifact_ref", "field", "offset", "max_chars"] as const;

/**
 * Look up a reference or refuse with `ResourceNotFoundException`.
 *
 * @example
 * ```ts
 * import { lookupArtifact } from "./get_field.ts";
 * // lookupArtifact(store, "r1") returns the stored artifact or throws a refusal.
 * ```
 */
export function lookupArtifact(source: ArtifactSource, ref: string): StoredArtifact {
  const a = source.get(ref);
  if (a) return a;
  throw new ArtifactToolFailure(
    "ResourceNotFoundException",
    "no artifact in this conversation has this reference. Use a reference shown in an " +
      "`[artifact] id=...` line, or find one with search_artifact_content.",
  );
}

/**
 * The artifact's content as text, or a refusal: binary content is an
 * `InvalidInputException`, a file changed since validation a `SystemException`.
 *
 * @example
 * ```ts
 * import { contentOrRefuse } from "./get_field.ts";
 * // const text = await contentOrRefuse(storedArtifact);
 * ```
 */
export async function contentOrRefuse(a: StoredArtifact): Promise<string> {
  try {
    return await readArtifactText(a);
  } catch (e) {
    if (e instanceof ContentUnavailable && e.problem === "binary") {
      throw invalidInput(
        "the content of this artifact is binary (not UTF-8 text), so it cannot be " +
          "returned as text; read its other fields (media_type, size_bytes, summary) instead.",
      );
    }
    throw new ArtifactToolFailure(
      "SystemException",
      "the artifact's file changed or disappeared after it was received, so its content " +
        "is no longer available; run the tool that produced it again.",
    );
  }
}

/**
 * The refusal for a field holding a protected value (value-free: no offset, no length).
 *
 * @example
 * ```ts
 * import { protectedRefusal } from "./get_field.ts";
 * protectedRefusal().exception; // "InvalidInputException"
 * ```
 */
export function protectedRefusal(): ArtifactToolFailure {
  return invalidInput(
    "this field holds a protected value, so it cannot be read or searched; " +
      "use the tool's redacted result instead.",
  );
}

interface Part {
  artifact_ref: string;
  field: string;
  content: string | null;
  offset: number;
  total_length: number;
  has_more: boolean;
  next_offset: number | null;
}

function partOf(id: string, field: string, value: string, offset: number, max: number): Part {
  let end = Math.min(value.length, offset + max);
  if (end < value.length && end - offset > 1 && isHighSurrogateAt(value, end - 1)) end--;
  const build = (e: number): Part => ({
    artifact_ref: id,
    field,
    content: value.slice(offset, e),
    offset,
    total_length: value.length,
    has_more: e < value.length,
    next_offset: e < value.length ? e : null,
  });
  let part = build(end);
  let bytes = jsonBytes(part);
  while (bytes > LIMITS.maxJsonBytes && end > offset + 1) {
    end = offset + Math.max(1, Math.floor((end - offset) * (LIMITS.maxJsonBytes / bytes) * 0.95));
    if (end - offset > 1 && isHighSurrogateAt(value, end - 1)) end--;
    part = build(end);
    bytes = jsonBytes(part);
  }
  return part;
}

/**
 * Run get_artifact_field against a conversation's artifacts. Arguments:
 * `artifact_ref`, `field` (snake_case or camelCase), `offset` (default 0) and
 * `max_chars` (default 10,000), both counted in UTF-16 code units. Returns a json block
 * `{artifact_ref, field, content, offset, total_length, has_more, next_offset}`; a
 * field the ref does not carry gives `content: null`. `content` may hold fewer than
 * `max_chars` units: one fewer so as not to split a surrogate pair, or fewer so that
 * the block stays within the 512 KiB json limit; `has_more`/`next_offset` say where
 * to continue. An offset equal to the length returns `""`; past it is refused.
 *
 * @example
 * ```ts
 * import { getArtifactField } from "./get_field.ts";
 * import { ArtifactStore } from "./store.ts";
 * const res = await getArtifactField(new ArtifactStore(), { artifact_ref: "r1", field: "summary" });
 * console.log(res.isError); // true: ResourceNotFoundException
 * ```
 */
export function getArtifactField(source: ArtifactSource, args: unknown): Promise<ToolResult> {
  return guarded(async () => {
    const o = readArgs(args, ARGS);
    const ref = requiredString(o, "artifact_ref");
    const name = requiredString(o, "field");
    const offset = optionalInteger(o, "offset", 0, 0);
    const maxChars = optionalInteger(o, "max_chars", 1, DEFAULT_MAX_CHARS);
    const a = lookupArtifact(source, ref);
    const field = canonicalFieldName(name);
    if (field === undefined) {
      throw invalidInput(
        `this artifact has no such field; its fields are: ${ARTIFACT_FIELDS.join(", ")}.`,
      );
    }
    const value = field === "content" ? await contentOrRefuse(a) : metadataValue(a.ref, field);
    if (value !== null && source.guard?.leaks(value)) throw protectedRefusal();
    if (value === null) {
      return jsonResult({
        artifact_ref: a.ref.id,
        field,
        content: null,
        offset,
        total_length: 0,
        has_more: false,
        next_offset: null,
      });
    }
    if (offset > value.length) {
      throw invalidInput(
        `\`offset\` is past the end of the field; its total length is ${value.length}.`,
      );
    }
    return jsonResult(partOf(a.ref.id, field, value, offset, maxChars));
  });
}
