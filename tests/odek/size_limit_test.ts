/** The 64 MiB ceiling: at the limit, one below and one above (sparse files). */

import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import {
  ArtifactRefError,
  inspectArtifactRef,
  MAX_ARTIFACT_BYTES,
  SCHEMA_ARTIFACT_REF,
} from "../../lib/odek/mod.ts";

function zerosSha256(n: number): string {
  const h = createHash("sha256");
  const chunk = new Uint8Array(4 * 1024 * 1024);
  for (let left = n; left > 0; left -= chunk.length) {
    h.update(left >= chunk.length ? chunk : chunk.subarray(0, left));
  }
  return h.digest("hex");
}

Deno.test("MAX_ARTIFACT_BYTES is 64 MiB; limit-1 and limit pass, limit+1 is too-large", async () => {
  assert.equal(MAX_ARTIFACT_BYTES, 64 * 1024 * 1024);
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "odek_big_" }));
  try {
    const ref = (name: string, extra: Record<string, unknown>) => ({
      schema: SCHEMA_ARTIFACT_REF,
      id: name,
      uri: `file://${dir}/${name}`,
      media_type: "application/octet-stream",
      ...extra,
    });
    for (const n of [MAX_ARTIFACT_BYTES - 1, MAX_ARTIFACT_BYTES, MAX_ARTIFACT_BYTES + 1]) {
      await Deno.writeFile(`${dir}/f${n}`, new Uint8Array());
      await Deno.truncate(`${dir}/f${n}`, n); // sparse: fast to create
    }
    const below = await inspectArtifactRef(
      ref(`f${MAX_ARTIFACT_BYTES - 1}`, { size_bytes: MAX_ARTIFACT_BYTES - 1 }),
      [dir],
    );
    assert.equal(below.size, MAX_ARTIFACT_BYTES - 1);
    const at = await inspectArtifactRef(
      ref(`f${MAX_ARTIFACT_BYTES}`, {
        size_bytes: MAX_ARTIFACT_BYTES,
        sha256: zerosSha256(MAX_ARTIFACT_BYTES),
      }),
      [dir],
    );
    assert.equal(at.size, MAX_ARTIFACT_BYTES);
    for (const extra of [{}, { sha256: "0".repeat(64) }, { size_bytes: MAX_ARTIFACT_BYTES + 1 }]) {
      await assert.rejects(
        inspectArtifactRef(ref(`f${MAX_ARTIFACT_BYTES + 1}`, extra), [dir]),
        (e: unknown) => e instanceof ArtifactRefError && e.rule === "too-large",
      );
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
