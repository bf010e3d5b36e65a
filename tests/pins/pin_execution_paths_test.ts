import assert from "node:assert/strict";
import { pinExecutionPaths, pinPath } from "../../lib/pins/mod.ts";
import { rejectsPin, withWorkspace, writeTree } from "./_helpers.ts";

const ABC = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";

Deno.test("pinExecutionPaths: maps keys to declared paths and digests", async () => {
  await withWorkspace(async (root) => {
    writeTree(root, { "tools/cov": "abc", "tools/harness/run": "h", "shared/rules.json": "{}" });
    const pins = await pinExecutionPaths(root, [
      { key: "coverage_spec", paths: ["tools/cov", "shared/rules.json"] },
      { key: "harness_app.start", paths: ["tools/harness"] },
      { key: "harness_app.stop", paths: ["tools/harness"] },
      { key: "lint_app", paths: [] },
    ]);
    assert.deepEqual(pins, {
      coverage_spec: {
        "tools/cov": ABC,
        "shared/rules.json": await pinPath(root, "shared/rules.json"),
      },
      "harness_app.start": { "tools/harness": await pinPath(root, "tools/harness") },
      "harness_app.stop": { "tools/harness": await pinPath(root, "tools/harness") },
      lint_app: {},
    });
  });
});

Deno.test("pinExecutionPaths: keys cannot reach the prototype", async () => {
  await withWorkspace(async (root) => {
    writeTree(root, { "t": "abc" });
    const pins = await pinExecutionPaths(root, [{ key: "__proto__", paths: ["t"] }]);
    assert.ok(Object.hasOwn(pins, "__proto__"));
    assert.equal(pins["__proto__"]["t"], ABC);
    assert.equal(Object.getPrototypeOf(pins), Object.prototype);
  });
});

Deno.test("pinExecutionPaths: many keys sharing paths, bounded concurrency", async () => {
  await withWorkspace(async (root) => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 40; i++) files[`tools/t${i}`] = String(i);
    writeTree(root, files);
    const requests = Array.from({ length: 64 }, (_, k) => ({
      key: `tool_${k}`,
      paths: [`tools/t${k % 40}`, "tools"],
    }));
    const pins = await pinExecutionPaths(root, requests, { concurrency: 2 });
    const dir = await pinPath(root, "tools");
    for (let k = 0; k < 64; k++) {
      assert.equal(pins[`tool_${k}`]["tools"], dir);
      assert.equal(pins[`tool_${k}`][`tools/t${k % 40}`], await pinPath(root, `tools/t${k % 40}`));
    }
  });
});

Deno.test("pinExecutionPaths: a failure names the key and path (PREPARATION_FAILED)", async () => {
  await withWorkspace(async (root) => {
    writeTree(root, { "tools/ok": "x" });
    await rejectsPin(
      pinExecutionPaths(root, [
        { key: "good_app", paths: ["tools/ok"] },
        { key: "bad_app", paths: ["tools/missing"] },
      ]),
      { root, declared: "tools/missing", reason: /^bad_app: .*it is missing/ },
    );
  });
});

Deno.test("pinExecutionPaths: budgets apply to each path", async () => {
  await withWorkspace(async (root) => {
    writeTree(root, { "a": "12345", "b": "123456" });
    const ok = await pinExecutionPaths(root, [{ key: "k", paths: ["a"] }], { maxBytes: 5 });
    assert.equal(Object.keys(ok.k).length, 1);
    await rejectsPin(
      pinExecutionPaths(root, [{ key: "k", paths: ["a", "b"] }], { maxBytes: 5 }),
      { root, declared: "b", reason: /more than 5 bytes/ },
    );
  });
});
