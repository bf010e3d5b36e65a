/**
 * A conversation's artifact store is bounded: every envelope may add 64 refs and a long
 * session makes any number of calls, so it keeps at most MAX_STORED_ARTIFACTS, forgetting
 * the oldest first (a forgotten reference is refused like an unknown one).
 */

import assert from "node:assert/strict";
import { ArtifactStore, MAX_STORED_ARTIFACTS } from "../../lib/artifacts/store.ts";

Deno.test("the store keeps at most MAX_STORED_ARTIFACTS, the newest", () => {
  assert.equal(MAX_STORED_ARTIFACTS, 1024);
  const store = new ArtifactStore();
  const ref = (id: string) => ({
    schema: "odek.artifact-ref/v1",
    id,
    uri: `file:///x/${id}`,
    media_type: "text/plain",
  });
  for (let i = 0; i < MAX_STORED_ARTIFACTS + 100; i++) store.add(ref(`a${i}`), `/x/a${i}`);
  assert.equal(store.size, MAX_STORED_ARTIFACTS);
  assert.equal(store.get("a0"), undefined);
  assert.equal(store.get("a99"), undefined);
  assert.ok(store.get("a100"));
  assert.ok(store.get(`a${MAX_STORED_ARTIFACTS + 99}`));
  store.add(ref("a100"), "/x/a100"); // re-added: now the newest, not evicted next
  store.add(ref("new"), "/x/new");
  assert.ok(store.get("a100"));
  assert.equal(store.get("a101"), undefined);
});
