import assert from "node:assert/strict";
import { canonicalSha256 } from "../../lib/plugins/mod.ts";
import { Registry } from "../../lib/registry/registry.ts";
import { loadWorkspace } from "../../lib/workspace/load_workspace.ts";
import { BASE, ENV, logLines, open } from "./_helpers.ts";

const AUDIT = `${BASE}
[plugins]
enable = ["policy", "audit-log"]

[plugins.policy]
[[plugins.policy.rules]]
effect = "deny"
tools = ["mark_*"]
match = [{ pointer = "/value", pattern = "^blocked" }]
reason = "blocked values"
`;

Deno.test("audit-log: one line per call with hash, outcome, bytes — never argument values", async () => {
  const w = await open(AUDIT);
  try {
    const secretish = "VALUE-THAT-MUST-NOT-BE-LOGGED";
    await w.reg.call("mark_app", { value: secretish });
    await w.reg.call("mark_app", { value: "blocked-1" });
    await w.reg.call("read_app", { path: "missing.txt" });
    const lines = logLines(w.stateDir, "audit.log");
    assert.equal(lines.length, 3);
    const recs = lines.map((l) => JSON.parse(l));
    assert.deepEqual(Object.keys(recs[0]).sort(), [
      "argsSha256",
      "artifactId",
      "callId",
      "durationMs",
      "eval",
      "outcome",
      "resultBytes",
      "session",
      "time",
      "tool",
    ]);
    assert.deepEqual(recs.map((r) => [r.tool, r.outcome, r.eval, r.session]), [
      ["mark_app", "ok", "app/review", null],
      ["mark_app", "denied", "app/review", null],
      ["read_app", "error", "app/review", null],
    ]);
    assert.equal(recs[0].argsSha256, canonicalSha256({ value: secretish }));
    assert.ok(recs.every((r) => /^[0-9a-f]{64}$/.test(r.argsSha256) && r.resultBytes > 0));
    assert.ok(!lines.join("\n").includes(secretish) && !lines.join("\n").includes("blocked-1"));
  } finally {
    await w.cleanup();
  }
});

Deno.test("audit-log: the hash is over canonical JSON (key order does not matter)", () => {
  assert.equal(
    canonicalSha256({ b: 1, a: { d: [1, { y: 2, x: 1 }], c: "é" } }),
    canonicalSha256({ a: { c: "é", d: [1, { x: 1, y: 2 }] }, b: 1 }),
  );
  assert.notEqual(canonicalSha256({ a: 1 }), canonicalSha256({ a: "1" }));
});

Deno.test("audit-log: 60 concurrent calls from two registries give 60 whole lines", async () => {
  const w = await open(AUDIT);
  const other = await Registry.open(await loadWorkspace(w.root), "app/review", {
    stateDir: w.stateDir,
    env: ENV,
  });
  try {
    await Promise.all(Array.from({ length: 60 }, (_, i) => {
      const reg = i % 2 ? w.reg : other;
      return i % 3
        ? reg.call("shell_app", { command: "echo x" })
        : reg.call("read_app", { path: "nope" });
    }));
    const lines = logLines(w.stateDir, "audit.log");
    assert.equal(lines.length, 60);
    const recs = lines.map((l) => JSON.parse(l));
    assert.equal(new Set(recs.map((r) => r.callId)).size, 60);
    assert.equal(recs.filter((r) => r.outcome === "ok").length, 40);
  } finally {
    await other.close();
    await w.cleanup();
  }
});
