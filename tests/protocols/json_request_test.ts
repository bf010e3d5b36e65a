import assert from "node:assert/strict";
import { buildJsonRequest, type JsonContext } from "../../lib/protocols/json_request.ts";
import { callJson } from "./helpers.ts";

const context: JsonContext = {
  artifactId: "example",
  artifactPath: "/workspace/example",
  outputDir: "/external/private/output",
  tmpDir: "/external/private/tmp",
  scope: {
    example: { path: "/workspace/example", kind: "folder", children: { rules: "spec" } },
    notes: { path: "/workspace/docs/notes.md", kind: "file", children: {} },
  },
  executionPaths: { "shared/rules.json": "/workspace/shared/rules.json" },
};

Deno.test("buildJsonRequest emits exactly the documented document", () => {
  const text = buildJsonRequest(context, { section: "summary" });
  assert.equal(
    text,
    '{"version":1,"context":{"artifactId":"example","artifactPath":"/workspace/example",' +
      '"outputDir":"/external/private/output","tmpDir":"/external/private/tmp",' +
      '"scope":{"example":{"path":"/workspace/example","kind":"folder","children":{"rules":"spec"}},' +
      '"notes":{"path":"/workspace/docs/notes.md","kind":"file","children":{}}},' +
      '"executionPaths":{"shared/rules.json":"/workspace/shared/rules.json"}},' +
      '"args":{"section":"summary"}}',
  );
});

Deno.test("executionPaths is omitted when empty or absent; extra keys never leak", () => {
  const { executionPaths: _, ...rest } = context;
  const sloppy = {
    ...rest,
    secretField: "x",
    scope: { a: { ...context.scope.example, extra: 1 } },
  };
  for (const ctx of [rest, { ...context, executionPaths: {} }, sloppy]) {
    const parsed = JSON.parse(buildJsonRequest(ctx as JsonContext, {}));
    assert.deepEqual(Object.keys(parsed), ["version", "context", "args"]);
    assert.deepEqual(Object.keys(parsed.context), [
      "artifactId",
      "artifactPath",
      "outputDir",
      "tmpDir",
      "scope",
    ]);
    for (const entry of Object.values(parsed.context.scope)) {
      assert.deepEqual(Object.keys(entry as object), ["path", "kind", "children"]);
    }
  }
});

Deno.test("the tool receives the request on stdin, with its private directories", async () => {
  const result = await callJson("misbehave.sh", ["echo_request"], {
    context: { artifactId: "fx", artifactPath: "/w/fx", scope: {}, executionPaths: {} },
    args: { query: 'a "quoted" value', n: [1, 2] },
  });
  assert.equal(result.isError, false);
  const block = result.content[0];
  assert.equal(block.type, "json");
  if (block.type !== "json") return;
  const req = block.data as { version: number; context: JsonContext; args: unknown };
  assert.equal(req.version, 1);
  assert.deepEqual(req.args, { query: 'a "quoted" value', n: [1, 2] });
  assert.equal(req.context.artifactPath, "/w/fx");
  assert.match(req.context.outputDir, /\/calls\/[0-9a-f]+\/output$/);
  assert.match(req.context.tmpDir, /\/calls\/[0-9a-f]+\/tmp$/);
  assert.equal("executionPaths" in req.context, false);
});
