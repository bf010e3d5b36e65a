/**
 * The fields an artifact exposes to the model: its ref's fields except `uri`, plus
 * `content` (its text, read on demand).
 *
 * @module
 */

import type { ArtifactRef } from "../odek/types.ts";

/** Every field of an artifact, canonical snake_case, in listing order. */
export const ARTIFACT_FIELDS = [
  "id",
  "schema",
  "media_type",
  "sha256",
  "size_bytes",
  "summary",
  "content",
] as const;

/** One canonical field name. */
export type ArtifactField = typeof ARTIFACT_FIELDS[number];

/** Fields search looks in (the text fields), in search order. */
export const SEARCHED_FIELDS: readonly ArtifactField[] = [
  "id",
  "schema",
  "media_type",
  "sha256",
  "summary",
  "content",
];

/**
 * Map a field name given in snake_case or camelCase to its canonical name, or
 * `undefined` when the artifact has no such field (`uri` included: never exposed).
 *
 * @example
 * ```ts
 * import { canonicalFieldName } from "./fields.ts";
 * canonicalFieldName("mediaType"); // "media_type"
 * canonicalFieldName("uri"); // undefined
 * ```
 */
export function canonicalFieldName(name: string): ArtifactField | undefined {
  const snake = name.replace(/([a-z0-9])([A-Z])/g, "$1_$2").toLowerCase();
  return (ARTIFACT_FIELDS as readonly string[]).includes(snake)
    ? snake as ArtifactField
    : undefined;
}

/**
 * The text of a metadata field (every field but `content`), or `null` when the ref
 * does not carry it. `size_bytes` is given in decimal.
 *
 * @example
 * ```ts
 * import { metadataValue } from "./fields.ts";
 * const ref = { schema: "odek.artifact-ref/v1", id: "a", uri: "file:///x/a", media_type: "text/plain" };
 * metadataValue(ref, "media_type"); // "text/plain"
 * metadataValue(ref, "summary"); // null
 * ```
 */
export function metadataValue(
  ref: Readonly<ArtifactRef>,
  field: Exclude<ArtifactField, "content">,
): string | null {
  const v = ref[field];
  if (v === undefined || v === null) return null;
  return typeof v === "number" ? String(v) : v;
}
