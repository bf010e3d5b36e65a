/**
 * Shapes of the odek extension contract.
 *
 * @module
 */

/** One odek.artifact-ref/v1 object. Unknown fields are dropped by {@link parseEnvelope}. */
export interface ArtifactRef {
  /** Must be exactly `odek.artifact-ref/v1`. */
  schema: string;
  /** Reference the model uses to name the artifact. Required, non-empty. */
  id: string;
  /** `file:///absolute/path` of the artifact. Required. Never rendered. */
  uri: string;
  /** Media type such as `application/json`. Required, non-empty. */
  media_type: string;
  /** Lowercase hex SHA-256 of the file; verified when present. */
  sha256?: string;
  /** Size in bytes; verified when present (absent is not 0). */
  size_bytes?: number;
  /** Short model-facing summary. */
  summary?: string;
}

/** The odek.tool-result/v1 envelope. */
export interface Envelope {
  /** Always `odek.tool-result/v1`. */
  schema: string;
  /** Compact model-facing text. */
  text: string;
  /** Artifact refs (at most 64); empty when the envelope carries none. */
  artifacts: ArtifactRef[];
}

/**
 * What validation established about an artifact file. `path` is for local bookkeeping
 * only and must never reach a model.
 */
export interface ValidatedArtifact {
  /** The resolved (symlink-free) absolute path of the file. */
  path: string;
  /** Size in bytes as measured by `stat`. */
  size: number;
  /** Device id, for identity checks at read time. */
  dev: bigint;
  /** Inode number, for identity checks at read time. */
  ino: bigint;
}
