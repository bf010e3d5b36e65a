/**
 * search_artifact_content reads every artifact's content of the conversation, and a
 * conversation can hold many (up to 64 per envelope, any number of calls) of up to 64 MiB
 * each: one search could read gigabytes. It reads at most MAX_SEARCH_BYTES of content per
 * call (as grep searches at most 64 MiB) and then stops with `has_more: true`; a search
 * limited to one `artifact_ref` still reaches any single artifact whole.
 */

import assert from "node:assert/strict";
import { MAX_SEARCH_BYTES } from "../../lib/artifacts/search.ts";
import { data, makeStore } from "./_store.ts";

Deno.test("one search reads at most MAX_SEARCH_BYTES of content, then says has_more", async () => {
  assert.equal(MAX_SEARCH_BYTES, 64 * 1024 * 1024);
  const big = 16 * 1024 * 1024;
  const filler = "a".repeat(big);
  const specs = Array.from({ length: 5 }, (_, i) => ({
    id: `a${i}`,
    content: i === 4 ? `${"a".repeat(big - 6)}needle` : filler,
  }));
  const t = await makeStore(specs);
  try {
    const all = data(await t.store.search({ query: "needle" }));
    assert.deepEqual(all.matches, []); // the fifth is past the budget: not read
    assert.equal(all.has_more, true);
    const one = data(await t.store.search({ query: "needle", artifact_ref: "a4" }));
    assert.equal((one.matches as unknown[]).length, 1);
    assert.equal(one.has_more, false);
  } finally {
    await t.cleanup();
  }
});
