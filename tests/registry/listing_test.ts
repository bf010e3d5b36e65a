/**
 * Registry listing: `<tool>_<artifactId>` for the eval's scope, agent tools only.
 */

import assert from "node:assert/strict";
import { InvocationError, loadWorkspace, Registry } from "../../mod.ts";
import { BUILTIN_SPECS } from "../../lib/builtins/specs.ts";
import { RESERVED_TOOL_NAMES } from "../../lib/workspace/names.ts";
import { fixture } from "../helpers/cli.ts";

const SCOPED = fixture("scoped");

/** The declared tools an eval lists (toolhost's own reserved tools left out). */
async function listOf(evalId: string): Promise<ReturnType<Registry["list"]>> {
  const ws = await loadWorkspace(SCOPED);
  const reg = await Registry.open(ws, evalId);
  try {
    return reg.list().filter((t) => !RESERVED_TOOL_NAMES.includes(t.name));
  } finally {
    await reg.close();
  }
}

// Seed: "Each Artifact in its admitted scope contributes its Agent declarations under
// <name>_<artifactId> ... Human tools are never listed."
Deno.test("app/review lists its Artifact, descendants and references; no human tools", async () => {
  const tools = await listOf("app/review");
  assert.deepEqual(tools.map((t) => t.name), [
    "read_app",
    "count_app",
    "echo_app",
    "list_spec",
    "read_deep",
    "read_notes",
  ]);
  const names = new Set(tools.map((t) => t.name));
  assert.ok(!names.has("overview_app"), "a human tool was listed");
  assert.ok(!names.has("read_other"), "an Artifact outside the scope was listed");
});

Deno.test("a child's eval does not see its parent", async () => {
  const tools = await listOf("spec/rules");
  assert.deepEqual(tools.map((t) => t.name), ["list_spec", "read_deep"]);
});

Deno.test("listings are { name, description, inputSchema } with rendered descriptions", async () => {
  const tools = await listOf("app/review");
  for (const t of tools) {
    assert.deepEqual(Object.keys(t).sort(), ["description", "inputSchema", "name"]);
  }
  const by = Object.fromEntries(tools.map((t) => [t.name, t]));
  assert.equal(by.count_app.description, "Count words in app.");
  assert.equal(by.echo_app.description, "Echo a word: {literal} braces.");
  assert.equal(by.read_notes.description, "Read lines of a file in notes.");
  assert.deepEqual(by.read_notes.inputSchema, BUILTIN_SPECS.read.modelSchema);
  assert.deepEqual(by.read_deep.inputSchema, { type: "object", additionalProperties: false });
  assert.deepEqual(JSON.parse(JSON.stringify(by.count_app.inputSchema)), {
    type: "object",
    properties: { file: { type: "string" } },
    required: ["file"],
    additionalProperties: false,
  });
});

// Seed: "Only Agent evals are accepted."
Deno.test("a human eval is refused for the default agent audience", async () => {
  const ws = await loadWorkspace(SCOPED);
  await assert.rejects(Registry.open(ws, "app/triage"), (e) => {
    assert.ok(e instanceof InvocationError);
    assert.match(e.message, /human/);
    return true;
  });
});

Deno.test("an unknown eval is an InvocationError with a did-you-mean", async () => {
  const ws = await loadWorkspace(SCOPED);
  await assert.rejects(Registry.open(ws, "app/reviw"), (e) => {
    assert.ok(e instanceof InvocationError);
    assert.equal(e.code, "UNKNOWN_EVAL");
    assert.match(e.message, /did you mean `app\/review`\?/);
    return true;
  });
  await assert.rejects(Registry.open(ws, "nothing-like-it"), (e) => {
    assert.ok(e instanceof InvocationError);
    assert.ok(!/did you mean/.test(e.message));
    assert.match(e.message, /app\/review, app\/triage, spec\/rules/);
    return true;
  });
});

Deno.test("the examples workspace lists app/review", async () => {
  const ws = await loadWorkspace(new URL("../../examples", import.meta.url).pathname);
  const reg = await Registry.open(ws, "app/review");
  try {
    const names = reg.list().map((t) => t.name);
    assert.ok(names.includes("read_app"));
    assert.ok(names.includes("section_spec"));
    assert.ok(names.includes("read_notes"));
    assert.ok(!names.includes("overview_app"));
  } finally {
    await reg.close();
  }
});

Deno.test("no eval at all (a JavaScript caller) is an InvocationError naming the evals", async () => {
  const ws = await loadWorkspace(SCOPED);
  for (const bad of [undefined, null, 42, { eval: "app/review" }]) {
    await assert.rejects(Registry.open(ws, bad as unknown as string), (e) => {
      assert.ok(e instanceof InvocationError, String(e));
      assert.equal(e.code, "UNKNOWN_EVAL");
      assert.match(e.message, /name the eval to open as a string/);
      assert.match(e.message, /app\/review, app\/triage, spec\/rules/);
      return true;
    });
  }
});

Deno.test("`await using` closes a registry at the end of its scope", async () => {
  const ws = await loadWorkspace(SCOPED);
  let kept: Registry;
  {
    await using reg = await Registry.open(ws, "app/review");
    kept = reg;
    assert.equal(reg.closed, false);
  }
  assert.equal(kept.closed, true);
});
