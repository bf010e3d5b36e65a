/**
 * toolhost's own harness-kit is shown read-only in every sandbox, and nothing more: the
 * list of bound files is harness-kit's run-time module graph (it fails when an import is
 * added or removed); a confined process reads those files but no other file of toolhost
 * (not harness-kit's test helpers, not lib/, not the README); a json tool written with
 * harness-kit runs under `sandbox = "none"`; and a harness-kit file inside the state dir
 * or an Artifact outside the scope is never bound.
 */

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { HARNESS_KIT_RUNTIME, harnessKitFiles } from "../../lib/sandbox/harness_kit_files.ts";
import { sandboxPlan } from "../../lib/sandbox/plan.ts";
import { loadWorkspace } from "../../lib/workspace/load_workspace.ts";
import type { Workspace } from "../../lib/workspace/types.ts";
import { Registry } from "../../lib/registry/registry.ts";
import { REPO_ROOT } from "../helpers/cli.ts";
import { tempWorkspace } from "../helpers/workspace.ts";
import { printSkip, skipReason } from "./_corpus.ts";

/** Relative specifiers of the value imports and re-exports of a module's source. */
function valueImports(src: string): string[] {
  const out: string[] = [];
  const re = /^(import|export)\s+(type\s+)?(?:[^;]*?\s+from\s+)?"(\.[^"]+)";/gms;
  for (const m of src.matchAll(re)) {
    if (m[2] !== undefined) continue; // `import type` / `export type`: erased at run time
    out.push(m[3]);
  }
  return out;
}

Deno.test("the bound files are exactly harness-kit/mod.ts's run-time module graph", () => {
  const seen = new Set<string>();
  const todo = ["harness-kit/mod.ts"];
  while (todo.length > 0) {
    const rel = todo.pop()!;
    if (seen.has(rel)) continue;
    seen.add(rel);
    const src = readFileSync(join(REPO_ROOT, rel), "utf8");
    for (const spec of valueImports(src)) todo.push(join(dirname(rel), spec));
  }
  assert.deepEqual([...seen].sort(), [...HARNESS_KIT_RUNTIME].sort());
  assert.deepEqual(
    harnessKitFiles(),
    HARNESS_KIT_RUNTIME.map((r) => join(REPO_ROOT, r)),
    "toolhost from a checkout finds each of them",
  );
});

const HELLO = `#!/usr/bin/env -S deno run -A --no-config --quiet
import { runJsonTool, text } from "${REPO_ROOT}/harness-kit/mod.ts";
await runJsonTool({ handler: () => [text("hello from harness-kit")] });
`;

Deno.test("confined: harness-kit's run-time files are readable, toolhost's other files are not", async () => {
  const skip = skipReason();
  if (skip) return printSkip("harness-kit in the sandbox", skip);
  await using ws = await tempWorkspace(
    `[artifacts.app]
path = "app"

[artifacts.app.evals.review]
audience = "agent"

[artifacts.app.views.agent_tools.sh]
builtin = "shell_exec"
sandbox = "read"

[artifacts.app.views.agent_tools.hello]
description = "Says hello."
protocol = "json"
command = "bin/hello.ts"
args = []
execution_paths = ["app/bin/hello.ts"]
sandbox = "none"
`,
    { "app/bin/hello.ts": { text: HELLO, mode: 0o755 } },
  );
  const PATH = `${dirname(Deno.execPath())}:/usr/bin:/bin`;
  const reg = await Registry.open(await loadWorkspace(ws.root), "app/review", { env: { PATH } });
  try {
    const hello = await reg.call("hello_app", {});
    assert.equal(hello.isError, false, JSON.stringify(hello));
    assert.match(JSON.stringify(hello.content), /hello from harness-kit/);

    const run = async (command: string) => JSON.stringify(await reg.call("sh_app", { command }));
    const kit = await run(`cat ${REPO_ROOT}/harness-kit/mod.ts ${REPO_ROOT}/lib/images/detect.ts`);
    assert.match(kit, /harness-kit: write toolhost tools/);
    assert.match(kit, /detectImage/);
    // The folder shows the bound files only: never testing.ts or anything placed there later.
    const listed = await run(`ls ${REPO_ROOT}/harness-kit ${REPO_ROOT}/lib`);
    assert.doesNotMatch(listed, /testing\.ts|registry|sandbox/);
    for (
      const f of ["README.md", "deno.json", "harness-kit/testing.ts", "lib/sandbox/plan.ts"]
    ) {
      const out = await run(`cat ${REPO_ROOT}/${f} >/dev/null && echo READ-IT || echo REFUSED`);
      assert.match(out, /REFUSED/, f);
      assert.doesNotMatch(out, /READ-IT/, f);
    }
  } finally {
    await reg.close();
  }
});

Deno.test("a harness-kit file inside the state dir or an out-of-scope Artifact is not bound", () => {
  const kit = harnessKitFiles();
  assert.ok(kit.length > 0);
  const policy = { mode: "read" as const, network: false, read: [], write: [] };
  const ws = (artifacts: [string, string][]) =>
    ({
      root: "/nowhere",
      artifacts: new Map(artifacts.map(([id, physicalPath]) => [id, { id, physicalPath }])),
    }) as unknown as Workspace;
  const plan = (w: Workspace, scope: string[], stateDir = "/nowhere/state") =>
    sandboxPlan(policy, { ws: w, scope, executionPaths: [], stateDir });

  const free = plan(ws([["app", "/nowhere/app"]]), ["app"]);
  for (const f of kit) assert.ok(free.readable.includes(f), f);

  const other = plan(ws([["app", "/nowhere/app"], ["src", REPO_ROOT]]), ["app"]);
  assert.deepEqual(other.readable.filter((p) => p.startsWith(REPO_ROOT)), []);
  const inScope = plan(ws([["src", REPO_ROOT]]), ["src"]);
  assert.ok(inScope.readable.includes(REPO_ROOT)); // in scope: the Artifact itself is shown
  const none = sandboxPlan({ ...policy, mode: "none" }, {
    ws: ws([["src", REPO_ROOT]]),
    scope: ["src"],
    executionPaths: [],
    stateDir: "/nowhere/state",
  });
  assert.deepEqual(none.readable.filter((p) => p.startsWith(REPO_ROOT)), []);

  const state = plan(ws([["app", "/nowhere/app"]]), ["app"], join(REPO_ROOT, "harness-kit"));
  assert.ok(!state.readable.some((p) => p.startsWith(join(REPO_ROOT, "harness-kit"))));
});
