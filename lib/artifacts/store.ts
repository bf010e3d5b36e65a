/**
 * The artifact store of one conversation (one open registry): the artifacts it has
 * received, by reference, and the two artifact tools over them.
 *
 * @module
 */

import { ArtifactRefError } from "../odek/errors.ts";
import type { ArtifactRef, ValidatedArtifact } from "../odek/types.ts";
import type { ToolResult } from "../results/types.ts";
import { getArtifactField } from "./get_field.ts";
import { searchArtifactContent } from "./search.ts";
import type { ArtifactInfo, ArtifactSource, ContentGuard, StoredArtifact } from "./types.ts";
import type { Protector } from "../redact/types.ts";

/**
 * Most artifacts one conversation keeps: each envelope may add 64 and a long session makes
 * any number of calls, so past this the oldest is forgotten (its reference is then refused
 * like an unknown one).
 *
 * @example
 * ```ts
 * import { MAX_STORED_ARTIFACTS } from "./store.ts";
 * MAX_STORED_ARTIFACTS; // 1024
 * ```
 */
export const MAX_STORED_ARTIFACTS = 1024;

function copyRef(ref: ArtifactRef): Readonly<ArtifactRef> {
  const out: ArtifactRef = {
    schema: ref.schema,
    id: ref.id,
    uri: ref.uri,
    media_type: ref.media_type,
  };
  if (typeof ref.sha256 === "string") out.sha256 = ref.sha256;
  if (typeof ref.size_bytes === "number") out.size_bytes = ref.size_bytes;
  if (typeof ref.summary === "string") out.summary = ref.summary;
  return Object.freeze(out);
}

/**
 * The artifacts one conversation has received. Add only refs that passed
 * `validateArtifactRef` / `inspectArtifactRef`. A later artifact with the same id
 * replaces the earlier one (the model's latest `[artifact]` line is what it names); past
 * {@link MAX_STORED_ARTIFACTS} the oldest is forgotten.
 *
 * @example
 * ```ts
 * import { ArtifactStore } from "./store.ts";
 * const store = new ArtifactStore();
 * const ref = { schema: "odek.artifact-ref/v1", id: "h", uri: "file:///etc/hostname", media_type: "text/plain" };
 * store.add(ref, "/etc/hostname");
 * const res = await store.getField({ artifact_ref: "h", field: "mediaType" });
 * ```
 */
export class ArtifactStore implements ArtifactSource {
  #byId = new Map<string, StoredArtifact>();
  #guard: ContentGuard | Protector | undefined;
  #listeners = new Set<() => void>();

  /** Call `listener` whenever the set of artifacts changes (an add or a clear). */
  onChange(listener: () => void): void {
    this.#listeners.add(listener);
  }

  #changed(): void {
    for (const l of this.#listeners) {
      try {
        l();
      } catch { /* a listener's failure is its own */ }
    }
  }

  /**
   * Refuse, from now on, every field whose text `guard` says holds a protected value
   * (fail closed: reading or searching such an artifact is an error). Idempotent.
   */
  protect(guard: ContentGuard | Protector): void {
    this.#guard = guard;
  }

  /**
   * The guard as a full {@link Protector} (when it is one): renders of artifact refs and
   * spilled texts are redacted with it.
   */
  get protector(): Protector | undefined {
    const g = this.#guard;
    return g !== undefined && "window" in g ? g : undefined;
  }

  /** The guard installed with {@link ArtifactStore.protect}, if any. */
  get guard(): ContentGuard | undefined {
    return this.#guard;
  }

  /**
   * Record a validated artifact. `resolved` is the path `validateArtifactRef` returned,
   * or the `ValidatedArtifact` from `inspectArtifactRef` — then every later read also
   * checks that the file keeps its device, inode and size.
   */
  add(ref: ArtifactRef, resolved: string | ValidatedArtifact): void {
    if (typeof ref?.id !== "string" || ref.id === "") throw new ArtifactRefError("missing-id");
    const shown = this.#shown(ref);
    if (shown === undefined) return; // its id holds a protected value: never named, never held
    const path = typeof resolved === "string" ? resolved : resolved.path;
    const identity = typeof resolved === "string"
      ? undefined
      : Object.freeze({ dev: resolved.dev, ino: resolved.ino, size: resolved.size });
    this.#byId.delete(shown.id);
    this.#byId.set(shown.id, Object.freeze({ ref: shown, path, identity }));
    if (this.#byId.size > MAX_STORED_ARTIFACTS) {
      this.#byId.delete(this.#byId.keys().next().value!); // the oldest
    }
    this.#changed();
  }

  /**
   * The ref as the store shows it (MCP resources, resource links, listings): with the
   * guard's protected values replaced in its media type and summary; undefined when its id
   * holds one, or when the guard cannot redact (a bare {@link ContentGuard}) and any of
   * them does.
   */
  #shown(ref: ArtifactRef): Readonly<ArtifactRef> | undefined {
    const g = this.#guard;
    const shown = [ref.id, ref.media_type, ref.summary].filter((s) => typeof s === "string");
    if (g === undefined || !shown.some((s) => g.leaks(s))) return copyRef(ref);
    const p = this.protector;
    if (p === undefined || g.leaks(ref.id)) return undefined;
    const out = { ...ref, media_type: p.text(String(ref.media_type)) };
    if (typeof ref.summary === "string") out.summary = p.text(ref.summary);
    return copyRef(out);
  }

  /** The artifact with reference `id`, if any (internal: holds the path). */
  get(id: string): StoredArtifact | undefined {
    return this.#byId.get(id);
  }

  /** Every artifact in the order received (internal: holds paths). */
  all(): StoredArtifact[] {
    return [...this.#byId.values()];
  }

  /** Model-safe descriptions of every artifact: no URI, no path. */
  list(): ArtifactInfo[] {
    return this.all().map(({ ref }) => {
      const info: ArtifactInfo = { id: ref.id, schema: ref.schema, media_type: ref.media_type };
      if (ref.sha256 !== undefined) info.sha256 = ref.sha256;
      if (ref.size_bytes !== undefined) info.size_bytes = ref.size_bytes;
      if (ref.summary !== undefined) info.summary = ref.summary;
      return info;
    });
  }

  /** Number of artifacts. */
  get size(): number {
    return this.#byId.size;
  }

  /** Forget every artifact (files are not touched). */
  clear(): void {
    const had = this.#byId.size > 0;
    this.#byId.clear();
    if (had) this.#changed();
  }

  /** Run get_artifact_field over this store (see `getArtifactField`). */
  getField(args: unknown): Promise<ToolResult> {
    return getArtifactField(this, args);
  }

  /** Run search_artifact_content over this store (see `searchArtifactContent`). */
  search(args: unknown): Promise<ToolResult> {
    return searchArtifactContent(this, args);
  }
}
