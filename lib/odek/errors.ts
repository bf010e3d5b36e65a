/**
 * Typed errors of the odek validator. Every error names the rule that was broken with a
 * stable string and never carries a path, a URI or file content.
 *
 * @module
 */

import { ToolhostError } from "../errors/errors.ts";

/** Rules an artifact ref can break, in the order {@link validateArtifactRef} checks them. */
export type ArtifactRefRule =
  | "ref-not-object"
  | "schema"
  | "missing-id"
  | "missing-uri"
  | "missing-media-type"
  | "field-type"
  | "no-roots"
  | "uri-scheme"
  | "uri-host"
  | "uri-query"
  | "uri-fragment"
  | "uri-encoding"
  | "path-double-encoded"
  | "path-nul"
  | "path-backslash"
  | "path-not-clean"
  | "not-found"
  | "no-usable-roots"
  | "outside-roots"
  | "not-regular"
  | "too-large"
  | "size-bytes-invalid"
  | "size-mismatch"
  | "sha256-format"
  | "file-changed"
  | "sha256-mismatch";

/** Rules an envelope can break once it claims the tool-result schema. */
export type EnvelopeRule =
  | "envelope-text"
  | "envelope-artifacts"
  | "too-many-artifacts"
  | "artifact-not-object"
  | "artifact-field-type";

const REF_MESSAGES: Record<ArtifactRefRule, string> = {
  "ref-not-object": "the ref must be a JSON object",
  "schema": "`schema` must be exactly odek.artifact-ref/v1",
  "missing-id": "`id` is required and must be a non-empty string",
  "missing-uri": "`uri` is required and must be a non-empty string",
  "missing-media-type": "`media_type` is required and must be a non-empty string",
  "field-type": "`sha256` and `summary` must be strings and `size_bytes` a number when present",
  "no-roots": "no artifact roots are configured for this tool, so every ref is rejected",
  "uri-scheme": "`uri` must be an absolute file URI of the form file:///absolute/path",
  "uri-host": "`uri` must not name a host (not even localhost): use file:///absolute/path",
  "uri-query": "`uri` must not carry a query (`?`)",
  "uri-fragment": "`uri` must not carry a fragment (`#`)",
  "uri-encoding": "`uri` holds an invalid percent escape or bytes that are not valid UTF-8",
  "path-double-encoded": "the decoded path still holds a percent escape (double encoding)",
  "path-nul": "the decoded path holds a NUL character",
  "path-backslash": "the decoded path holds a backslash",
  "path-not-clean": "the path must be clean: no `.` or `..` elements, no `//`, no trailing `/`",
  "not-found": "the artifact file does not exist or cannot be resolved",
  "no-usable-roots": "none of the configured artifact roots exists as a directory",
  "outside-roots": "after resolving symlinks the file is not inside any artifact root",
  "not-regular": "the artifact must be a regular file",
  "too-large": "the artifact file is larger than 64 MiB",
  "size-bytes-invalid": "`size_bytes` must be a non-negative integer",
  "size-mismatch": "`size_bytes` does not equal the size of the file",
  "sha256-format": "`sha256` must be 64 lowercase hexadecimal characters",
  "file-changed": "the file changed while it was being verified",
  "sha256-mismatch": "`sha256` does not match the content of the file",
};

const ENVELOPE_MESSAGES: Record<EnvelopeRule, string> = {
  "envelope-text": "`text` is required and must be a string",
  "envelope-artifacts": "`artifacts` must be an array when present",
  "too-many-artifacts": "an envelope may carry at most 64 artifact refs",
  "artifact-not-object": "every entry of `artifacts` must be a JSON object",
  "artifact-field-type":
    "artifact ref fields must have their schema types (strings; `size_bytes` an integer)",
};

/**
 * An artifact ref broke a validation rule. `rule` is stable; `index` is the ref's
 * 0-based position in its envelope when known.
 *
 * @example
 * ```ts
 * import { ArtifactRefError } from "./errors.ts";
 * const e = new ArtifactRefError("uri-host", 3);
 * console.log(e.code, e.rule, e.index); // INVALID_ARTIFACT uri-host 3
 * ```
 */
export class ArtifactRefError extends ToolhostError {
  /** The broken rule. */
  readonly rule: ArtifactRefRule;
  /** 0-based index of the ref in its envelope, when known. */
  readonly index: number | undefined;
  /** Create an error for `rule`, optionally locating the ref by index. */
  constructor(rule: ArtifactRefRule, index?: number) {
    const where = index === undefined ? "artifact ref" : `artifact ref artifacts[${index}]`;
    super(
      "INVALID_ARTIFACT",
      `${where} was rejected (rule ${rule}): ${REF_MESSAGES[rule]}. ` +
        "Fix the tool so it emits a valid odek.artifact-ref/v1 under one of its artifact roots.",
    );
    this.rule = rule;
    this.index = index;
  }

  /**
   * The same error located at `index` in its envelope.
   *
   * @example
   * ```ts
   * import { ArtifactRefError } from "./errors.ts";
   * new ArtifactRefError("schema").at(2).message;
   * ```
   */
  at(index: number): ArtifactRefError {
    return new ArtifactRefError(this.rule, index);
  }
}

/**
 * A text claimed the odek.tool-result/v1 schema but is malformed.
 *
 * @example
 * ```ts
 * import { InvalidEnvelopeError } from "./errors.ts";
 * const e = new InvalidEnvelopeError("too-many-artifacts");
 * console.log(e.code, e.rule); // INVALID_ARTIFACT too-many-artifacts
 * ```
 */
export class InvalidEnvelopeError extends ToolhostError {
  /** The broken rule. */
  readonly rule: EnvelopeRule;
  /** 0-based index of the offending artifact entry, when the rule concerns one. */
  readonly index: number | undefined;
  /** Create an error for `rule`. */
  constructor(rule: EnvelopeRule, index?: number) {
    const where = index === undefined ? "" : ` at artifacts[${index}]`;
    super(
      "INVALID_ARTIFACT",
      `odek.tool-result/v1 envelope is malformed${where} (rule ${rule}): ` +
        `${ENVELOPE_MESSAGES[rule]}. A text that claims this schema must back the claim up.`,
    );
    this.rule = rule;
    this.index = index;
  }
}
