/**
 * `programDigest`: concurrent requests for the same program share one hash and all get
 * its SHA-256; a program rewritten afterwards gets its new digest (the memo is keyed by
 * the file's identity, not its path).
 */

import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { programDigest } from "../../lib/pins/program_pin.ts";

const sha = (b: Uint8Array) => createHash("sha256").update(b).digest("hex");

Deno.test("concurrent digests of one program agree; a rewritten program gets its new digest", async () => {
  const dir = await Deno.makeTempDir({ prefix: "toolhost_digest_" });
  try {
    const path = `${dir}/prog`;
    const bytes = new Uint8Array(4 << 20).map((_, i) => i % 251);
    Deno.writeFileSync(path, bytes, { mode: 0o755 });
    const all = await Promise.all(Array.from({ length: 6 }, () => programDigest(path)));
    assert.deepEqual(all, Array(6).fill(sha(bytes)));
    const changed = bytes.map((b) => b ^ 1);
    Deno.writeFileSync(`${dir}/next`, changed, { mode: 0o755 });
    Deno.renameSync(`${dir}/next`, path); // a new file (inode) at the same path
    const again = await Promise.all([programDigest(path), programDigest(path)]);
    assert.deepEqual(again, [sha(changed), sha(changed)]);
    assert.equal(await programDigest(`${dir}/missing`), undefined);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
