/**
 * Fail-closed validation of odek.artifact-ref/v1 references against artifact roots.
 *
 * @module
 */

import { promises as fsp } from "node:fs";
import { timingSafeEqual } from "node:crypto";
import { MAX_ARTIFACT_BYTES, SCHEMA_ARTIFACT_REF } from "./constants.ts";
import { ArtifactRefError } from "./errors.ts";
import { isRecord } from "./envelope.ts";
import { sha256OfSameFile } from "./hash.ts";
import { isInsideRoots, resolveRoots } from "./roots.ts";
import type { Envelope, ValidatedArtifact } from "./types.ts";
import { uriToCleanPath } from "./uri.ts";

const SHA256_HEX = /^[0-9a-f]{64}$/;

/** Optional fields as read from an unknown ref (null counts as absent). */
interface OptionalFields {
  sha256: string | undefined;
  size_bytes: number | undefined;
}

function field(ref: Record<string, unknown>, key: string): unknown {
  const v = Object.hasOwn(ref, key) ? ref[key] : undefined;
  return v === null ? undefined : v;
}

function checkShape(ref: unknown): { uri: string; opt: OptionalFields } {
  if (!isRecord(ref)) throw new ArtifactRefError("ref-not-object");
  if (field(ref, "schema") !== SCHEMA_ARTIFACT_REF) throw new ArtifactRefError("schema");
  const nonEmpty = (k: string) => typeof field(ref, k) === "string" && field(ref, k) !== "";
  if (!nonEmpty("id")) throw new ArtifactRefError("missing-id");
  if (!nonEmpty("uri")) throw new ArtifactRefError("missing-uri");
  if (!nonEmpty("media_type")) throw new ArtifactRefError("missing-media-type");
  const sha256 = field(ref, "sha256");
  const summary = field(ref, "summary");
  const size = field(ref, "size_bytes");
  if (
    (sha256 !== undefined && typeof sha256 !== "string") ||
    (summary !== undefined && typeof summary !== "string") ||
    (size !== undefined && typeof size !== "number")
  ) {
    throw new ArtifactRefError("field-type");
  }
  return { uri: field(ref, "uri") as string, opt: { sha256, size_bytes: size } };
}

async function resolveExisting(path: string): Promise<string> {
  try {
    return await fsp.realpath(path);
  } catch {
    throw new ArtifactRefError("not-found");
  }
}

async function statRegular(resolved: string): Promise<{ dev: bigint; ino: bigint; size: number }> {
  let st;
  try {
    st = await fsp.lstat(resolved, { bigint: true });
  } catch {
    throw new ArtifactRefError("not-found");
  }
  if (!st.isFile()) throw new ArtifactRefError("not-regular");
  if (st.size > BigInt(MAX_ARTIFACT_BYTES)) throw new ArtifactRefError("too-large");
  return { dev: st.dev, ino: st.ino, size: Number(st.size) };
}

async function checkSha256(
  expected: string,
  path: string,
  id: { dev: bigint; ino: bigint; size: number },
): Promise<void> {
  if (!SHA256_HEX.test(expected)) throw new ArtifactRefError("sha256-format");
  let actual: string;
  try {
    actual = await sha256OfSameFile(path, id);
  } catch {
    // FileChangedError or any I/O failure: the file is not the one that was checked.
    throw new ArtifactRefError("file-changed");
  }
  const a = new TextEncoder().encode(actual);
  const b = new TextEncoder().encode(expected);
  if (!timingSafeEqual(a, b)) throw new ArtifactRefError("sha256-mismatch");
}

/**
 * Validate `ref` fail-closed against `roots` and describe the verified file.
 * Same rules and order as {@link validateArtifactRef}, which returns only the path.
 *
 * @example
 * ```ts
 * import { inspectArtifactRef } from "./validate.ts";
 * const ref = { schema: "odek.artifact-ref/v1", id: "h", uri: "file:///etc/hostname", media_type: "text/plain" };
 * const { size } = await inspectArtifactRef(ref, ["/etc"]);
 * ```
 */
export async function inspectArtifactRef(
  ref: unknown,
  roots: readonly string[],
): Promise<ValidatedArtifact> {
  const { uri, opt } = checkShape(ref);
  if (!Array.isArray(roots) || roots.length === 0) throw new ArtifactRefError("no-roots");
  const clean = uriToCleanPath(uri);
  const resolved = await resolveExisting(clean);
  const realRoots = await resolveRoots(roots);
  if (realRoots.length === 0) throw new ArtifactRefError("no-usable-roots");
  if (!isInsideRoots(resolved, realRoots)) throw new ArtifactRefError("outside-roots");
  const id = await statRegular(resolved);
  if (opt.size_bytes !== undefined) {
    if (!Number.isSafeInteger(opt.size_bytes) || opt.size_bytes < 0) {
      throw new ArtifactRefError("size-bytes-invalid");
    }
    if (opt.size_bytes !== id.size) throw new ArtifactRefError("size-mismatch");
  }
  if (opt.sha256 !== undefined) await checkSha256(opt.sha256, resolved, id);
  return { path: resolved, size: id.size, dev: id.dev, ino: id.ino };
}

/**
 * Validate an artifact ref fail-closed against the configured artifact roots and return
 * the resolved (symlink-free) absolute path of the artifact file — for local bookkeeping
 * only, never to be rendered to a model. Rules, checked in this order, each raising
 * {@link ArtifactRefError} with a stable `rule`:
 *
 * 1. the ref is an object (`ref-not-object`) whose `schema` is exactly
 *    `odek.artifact-ref/v1` (`schema`);
 * 2. `id`, `uri`, `media_type` are non-empty strings (`missing-*`); optional fields have
 *    their JSON types (`field-type`; `null` counts as absent);
 * 3. `roots` is non-empty (`no-roots`);
 * 4. `uri` is `file:///absolute/path`: no host, query or fragment; escapes decoded once
 *    to valid UTF-8; no NUL, backslash or leftover escape; a clean path (see
 *    `uriToCleanPath`);
 * 5. the file exists (`not-found`) and, after `realpath`, lies inside one of the roots,
 *    themselves resolved with `realpath` — missing roots are skipped
 *    (`no-usable-roots` when none is left), with a real directory boundary
 *    (`outside-roots`);
 * 6. it is a regular file (`not-regular`; FIFOs and devices are never opened) of at most
 *    64 MiB by `lstat`, before any hashing (`too-large`);
 * 7. `size_bytes`, when present, is a non-negative integer (`size-bytes-invalid`) equal
 *    to the size (`size-mismatch`); absent is not 0;
 * 8. `sha256`, when present, is 64 lowercase hex characters (`sha256-format`) and equals
 *    the streamed SHA-256 of the file (`sha256-mismatch`). The file is opened with
 *    `O_NOFOLLOW|O_NONBLOCK` and `fstat` must show the same device, inode, type and size
 *    as checked, with exactly that many bytes read (`file-changed`).
 *
 * Content is read only to hash it and is never returned. Error messages carry no path,
 * URI or content.
 *
 * @example
 * ```ts
 * import { validateArtifactRef } from "./validate.ts";
 * const ref = { schema: "odek.artifact-ref/v1", id: "h", uri: "file:///etc/hostname", media_type: "text/plain" };
 * const resolved = await validateArtifactRef(ref, ["/etc"]);
 * ```
 */
export async function validateArtifactRef(ref: unknown, roots: readonly string[]): Promise<string> {
  return (await inspectArtifactRef(ref, roots)).path;
}

/**
 * Validate every ref of an envelope, in order. The first invalid ref fails the whole
 * envelope with an {@link ArtifactRefError} whose `index` locates it.
 *
 * @example
 * ```ts
 * import { validateEnvelope } from "./validate.ts";
 * const found = await validateEnvelope({ schema: "odek.tool-result/v1", text: "ok", artifacts: [] }, ["/tmp"]);
 * console.log(found.length); // 0
 * ```
 */
export async function validateEnvelope(
  env: Envelope,
  roots: readonly string[],
): Promise<ValidatedArtifact[]> {
  const out: ValidatedArtifact[] = [];
  for (const [i, ref] of env.artifacts.entries()) {
    try {
      out.push(await inspectArtifactRef(ref, roots));
    } catch (e) {
      if (e instanceof ArtifactRefError) throw e.at(i);
      throw new ArtifactRefError("not-found", i);
    }
  }
  return out;
}
