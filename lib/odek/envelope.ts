/**
 * Detection and structural parsing of odek.tool-result/v1 envelopes.
 *
 * @module
 */

import { MAX_ARTIFACTS_PER_ENVELOPE, SCHEMA_TOOL_RESULT } from "./constants.ts";
import { InvalidEnvelopeError } from "./errors.ts";
import type { ArtifactRef, Envelope } from "./types.ts";

/**
 * Plain-object test: not null, not an array.
 *
 * @example
 * ```ts
 * import { isRecord } from "./envelope.ts";
 * isRecord({}); // true
 * isRecord([]); // false
 * ```
 */
export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function own(o: Record<string, unknown>, key: string): unknown {
  return Object.hasOwn(o, key) ? o[key] : undefined;
}

/** Only text that starts as a JSON object can be an envelope (skips a parse attempt). */
const STARTS_AS_OBJECT = /^\s*\{/;

/**
 * Detect and parse an odek.tool-result/v1 envelope carried as a tool result's text.
 *
 * Returns `null` when the text is not a JSON object or its `schema` is not exactly
 * `odek.tool-result/v1`: it is plain text, to be forwarded unchanged. A text that claims
 * the schema but is malformed throws {@link InvalidEnvelopeError}: `text` missing or not
 * a string, `artifacts` present but not an array (null included), an entry that is not
 * an object, a known ref field of the wrong JSON type, or more than 64 refs.
 * Unknown fields are ignored; a JSON `null` in an optional ref field counts as absent.
 * A missing required ref field becomes `""`, which {@link validateArtifactRef} rejects.
 *
 * @example
 * ```ts
 * import { parseEnvelope } from "./envelope.ts";
 * parseEnvelope("hello"); // null
 * parseEnvelope('{"schema":"odek.tool-result/v1","text":"ok"}'); // { schema, text: "ok", artifacts: [] }
 * ```
 */
export function parseEnvelope(text: string): Envelope | null {
  if (typeof text !== "string" || !STARTS_AS_OBJECT.test(text)) return null;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  if (!isRecord(value) || own(value, "schema") !== SCHEMA_TOOL_RESULT) return null;
  const body = own(value, "text");
  if (typeof body !== "string") throw new InvalidEnvelopeError("envelope-text");
  const raw = own(value, "artifacts");
  if (raw === undefined) return { schema: SCHEMA_TOOL_RESULT, text: body, artifacts: [] };
  if (!Array.isArray(raw)) throw new InvalidEnvelopeError("envelope-artifacts");
  if (raw.length > MAX_ARTIFACTS_PER_ENVELOPE) {
    throw new InvalidEnvelopeError("too-many-artifacts");
  }
  const artifacts = raw.map((entry, i) => parseRef(entry, i));
  return { schema: SCHEMA_TOOL_RESULT, text: body, artifacts };
}

const STRING_FIELDS = ["schema", "id", "uri", "media_type"] as const;

function parseRef(entry: unknown, index: number): ArtifactRef {
  if (!isRecord(entry)) throw new InvalidEnvelopeError("artifact-not-object", index);
  const ref: ArtifactRef = { schema: "", id: "", uri: "", media_type: "" };
  for (const key of STRING_FIELDS) {
    const v = own(entry, key);
    if (v === undefined || v === null) continue;
    if (typeof v !== "string") throw new InvalidEnvelopeError("artifact-field-type", index);
    ref[key] = v;
  }
  for (const key of ["sha256", "summary"] as const) {
    const v = own(entry, key);
    if (v === undefined || v === null) continue;
    if (typeof v !== "string") throw new InvalidEnvelopeError("artifact-field-type", index);
    ref[key] = v;
  }
  const size = own(entry, "size_bytes");
  if (size !== undefined && size !== null) {
    if (typeof size !== "number" || !Number.isInteger(size)) {
      throw new InvalidEnvelopeError("artifact-field-type", index);
    }
    ref.size_bytes = size;
  }
  return ref;
}
