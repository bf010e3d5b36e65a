/**
 * Adversarial corpus for validateArtifactRef: every rule, every encoding of traversal,
 * symlinks at every component, special files, size and hash mismatches.
 */

import assert from "node:assert/strict";
import { runCorpus } from "./_corpus.ts";
import { FS_CASES } from "./_corpus_fs.ts";
import { URI_CASES } from "./_corpus_uri.ts";

Deno.test("ref corpus holds at least 60 cases", () => {
  assert.ok(URI_CASES.length + FS_CASES.length >= 60);
});

Deno.test("ref corpus: shape, schema, URI and traversal cases fail closed", (t) =>
  runCorpus(t, URI_CASES));

Deno.test("ref corpus: filesystem cases (roots, symlinks, special files, size, hash)", (t) =>
  runCorpus(t, FS_CASES));
