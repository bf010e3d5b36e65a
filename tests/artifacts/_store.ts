/** Build an ArtifactStore over temporary, validated artifact files. */

import { createHash } from "node:crypto";
import { ArtifactStore } from "../../lib/artifacts/mod.ts";
import { type ArtifactRef, inspectArtifactRef, SCHEMA_ARTIFACT_REF } from "../../lib/odek/mod.ts";
import type { ToolResult } from "../../lib/results/types.ts";

/** One artifact to create: file content plus ref fields. */
export interface Spec {
  id: string;
  content: string | Uint8Array;
  media_type?: string;
  summary?: string;
  withSha?: boolean;
  withSize?: boolean;
}

/** A store with its temp dir. */
export interface TestStore {
  store: ArtifactStore;
  dir: string;
  refs: Map<string, ArtifactRef>;
  cleanup(): Promise<void>;
}

/** Create files, validate their refs and add them (with identity) to a new store. */
export async function makeStore(specs: Spec[]): Promise<TestStore> {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "artifacts_" }));
  const store = new ArtifactStore();
  const refs = new Map<string, ArtifactRef>();
  for (const [i, s] of specs.entries()) {
    const bytes = typeof s.content === "string" ? new TextEncoder().encode(s.content) : s.content;
    const path = `${dir}/f${i}`;
    await Deno.writeFile(path, bytes);
    const ref: ArtifactRef = {
      schema: SCHEMA_ARTIFACT_REF,
      id: s.id,
      uri: `file://${path}`,
      media_type: s.media_type ?? "text/plain",
    };
    if (s.summary !== undefined) ref.summary = s.summary;
    if (s.withSha) ref.sha256 = createHash("sha256").update(bytes).digest("hex");
    if (s.withSize) ref.size_bytes = bytes.length;
    store.add(ref, await inspectArtifactRef(ref, [dir]));
    refs.set(s.id, ref);
  }
  return { store, dir, refs, cleanup: () => Deno.remove(dir, { recursive: true }) };
}

/** The json data of a successful result (throws on an error result). */
export function data(res: ToolResult): Record<string, unknown> {
  if (res.isError) throw new Error(`unexpected error result: ${JSON.stringify(res)}`);
  const b = res.content[0];
  if (b.type !== "json") throw new Error("expected a json block");
  return b.data as Record<string, unknown>;
}

/** The text of an error result (throws on success). */
export function errorText(res: ToolResult): string {
  if (!res.isError) throw new Error(`expected an error result: ${JSON.stringify(res)}`);
  const b = res.content[0];
  if (b.type !== "text") throw new Error("expected a text block");
  return b.text;
}
