import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Registry } from "../../lib/registry/registry.ts";
import { loadWorkspace } from "../../lib/workspace/load_workspace.ts";
import { testSession } from "../../harness-kit/mod.ts";
import { assertGroupsGone, assertStateClean, journalEntries } from "../sessions/_helpers.ts";

const EXAMPLES = new URL("../../examples", import.meta.url).pathname;
const HARNESS = new URL("../../examples/app/harness/app_harness.mjs", import.meta.url).pathname;

function data(r: { content: { type: string; data?: unknown }[] }): unknown {
  return r.content.find((b) => b.type === "json")?.data;
}

Deno.test("examples: the web session starts lazily, its tools share the app, and it is cleaned up", async () => {
  const state = mkdtempSync(join(tmpdir(), "toolhost-example-"));
  try {
    const reg = await Registry.open(await loadWorkspace(EXAMPLES), "app/review", {
      stateDir: state,
    });
    const pins = reg.provenance().executionPaths;
    assert.match(pins["web_app.start"]["app/harness"], /^[0-9a-f]{64}$/);
    assert.match(pins["web_app.stop"]["app/harness"], /^[0-9a-f]{64}$/);
    let groups;
    try {
      assert.equal(sessionCount(state), 0, "opening the registry started the session");
      assert.deepEqual(data(await reg.call("counter_add_app", { by: 2 })), { value: 2 });
      assert.deepEqual(data(await reg.call("counter_add_app", { by: 3 })), { value: 5 });
      assert.deepEqual(data(await reg.call("counter_get_app", {})), { value: 5 });
      const page = await reg.call("page_app", {});
      assert.match((page.content[0] as { text: string }).text, /^HTTP 200\n.*Counter: 5/s);
      const missing = await reg.call("page_app", { path: "/missing" });
      assert.match((missing.content[0] as { text: string }).text, /^HTTP 404/);
      groups = (await journalEntries(state)).map((e) => e.record);
    } finally {
      await reg.close();
    }
    assertGroupsGone(groups);
    assertStateClean(state);
  } finally {
    rmSync(state, { recursive: true, force: true });
  }
});

function sessionCount(state: string): number {
  try {
    return [...Deno.readDirSync(join(state, "sessions"))].length;
  } catch {
    return 0;
  }
}

Deno.test("examples: testSession drives the plain-Node harness the same way", async () => {
  await using s = await testSession({
    harness: HARNESS,
    actions: { counter_add: { properties: { by: { type: "integer" } } }, counter_get: {} },
  });
  await s.call("counter_add", { by: 7 });
  assert.deepEqual(data(await s.call("counter_get")), { value: 7 });
});
