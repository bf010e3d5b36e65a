/**
 * Shapes shared by the artifact store and the artifact tools.
 *
 * @module
 */

import type { ArtifactRef } from "../odek/types.ts";
import type { FileIdentity } from "../odek/hash.ts";

/** One artifact this conversation received. `path` never reaches a model. */
export interface StoredArtifact {
  /** A frozen copy of the validated ref. */
  readonly ref: Readonly<ArtifactRef>;
  /** Resolved path of the validated file (bookkeeping only). */
  readonly path: string;
  /** Identity established at validation; re-checked at every read when present. */
  readonly identity?: FileIdentity;
}

/** Tells whether a text holds a protected value (e.g. the plugins' redactor). */
export interface ContentGuard {
  /** Whether `text` contains any protected value. */
  leaks(text: string): boolean;
}

/** Read access to a conversation's artifacts, as the tools need it. */
export interface ArtifactSource {
  /**
   * When present, the tools refuse every field whose text holds a protected value:
   * a window or a search over it would reveal a part of the value, which whole-value
   * redaction of the result cannot catch.
   */
  readonly guard?: ContentGuard;
  /** The artifact with reference `id`, if this conversation has it. */
  get(id: string): StoredArtifact | undefined;
  /** Every artifact, in the order received. */
  all(): StoredArtifact[];
}

/** Model-safe description of a stored artifact (no URI, no path). */
export interface ArtifactInfo {
  /** Reference. */
  id: string;
  /** Always `odek.artifact-ref/v1`. */
  schema: string;
  /** Media type. */
  media_type: string;
  /** SHA-256 when the ref carried one. */
  sha256?: string;
  /** Size in bytes when known. */
  size_bytes?: number;
  /** Summary when the ref carried one. */
  summary?: string;
}
