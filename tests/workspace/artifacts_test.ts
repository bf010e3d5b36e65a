/**
 * Artifacts: paths, file Artifacts, children, evals and their references, scoped
 * `{ artifact = "ID" }` operands.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { evalScope } from "../../lib/workspace/scope.ts";
import {
  BASE_FILES,
  BASE_TOML,
  expectLoads,
  expectProblem,
  JSON_TOOL,
  problemsOf,
  toolTable,
  withWorkspace,
} from "../helpers/workspace.ts";
import { loadWorkspace } from "../../lib/workspace/load_workspace.ts";

// DESIGN: "Artifact paths are workspace-relative, must exist, and no component may be a
// symlink."
Deno.test("Artifact path: missing is rejected", async () => {
  await expectProblem('[artifacts.app]\npath = "nope/deeper"\n', BASE_FILES, {
    keyPath: "artifacts.app.path",
    message: /does not exist \(`nope` is missing\)/,
    line: 2,
  });
});

Deno.test("Artifact path: a symlink in any component is rejected", async () => {
  const files = { ...BASE_FILES, "link": { symlink: "app" }, "app/file.md": "x" };
  for (const path of ["link", "link/file.md"]) {
    await expectProblem(`[artifacts.app]\npath = "${path}"\n`, files, {
      keyPath: "artifacts.app.path",
      message: /symlink \(`link` is one\)/,
    });
  }
  const last = { ...BASE_FILES, "app/alias.md": { symlink: "README.md" } };
  await expectProblem('[artifacts.app]\npath = "app/alias.md"\n', last, {
    keyPath: "artifacts.app.path",
    message: /symlink/,
  });
});

Deno.test("Artifact path: absolute, `..`, `.` components and empty are rejected", async () => {
  for (const path of ["/tmp", "../x", "app/../app", "./app", "app/", "", "a\\\\b", "c:d"]) {
    await expectProblem(`[artifacts.app]\npath = "${path}"\n`, BASE_FILES, {
      keyPath: "artifacts.app.path",
      message: /workspace-relative/,
    });
  }
});

Deno.test("Artifact path: required, and must be a string", async () => {
  await expectProblem("[artifacts.app]\n", BASE_FILES, {
    keyPath: "artifacts.app.path",
    message: /required/,
  });
  await expectProblem("[artifacts.app]\npath = 1\n", BASE_FILES, {
    keyPath: "artifacts.app.path",
    message: /must be a string/,
  });
});

Deno.test("a file Artifact: kind file, cwd its containing folder", async () => {
  await withWorkspace(
    '[artifacts.notes]\npath = "docs/notes.md"\n',
    { "docs/notes.md": "# n\n" },
    async (root) => {
      const ws = await loadWorkspace(root);
      const a = ws.artifacts.get("notes")!;
      assert.equal(a.kind, "file");
      assert.equal(a.relPath, "docs/notes.md");
      assert.equal(a.physicalPath, join(root, "docs/notes.md"));
      assert.equal(a.cwd, join(root, "docs"));
    },
  );
});

Deno.test("a special file is not an Artifact", async () => {
  await withWorkspace('[artifacts.p]\npath = "pipe"\n', {}, async (root) => {
    const out = await new Deno.Command("mkfifo", { args: [join(root, "pipe")] }).output();
    assert.equal(out.code, 0);
    await assert.rejects(loadWorkspace(root), /must name a folder or a regular file/);
  });
});

Deno.test("two Artifacts on the same path are rejected", async () => {
  await expectProblem('[artifacts.a]\npath = "app"\n[artifacts.b]\npath = "app"\n', BASE_FILES, {
    keyPath: "artifacts.b.path",
    message: /same path as Artifact `a`/,
  });
});

// DESIGN: "Children: an Artifact whose path lies inside another folder Artifact is its
// child."
Deno.test("children: nested Artifacts link to their nearest folder parent", async () => {
  const toml = [
    '[artifacts.top]\npath = "."',
    '[artifacts.app]\npath = "app"',
    '[artifacts.deep]\npath = "app/rules/deep"', // skips undeclared app/rules
    '[artifacts.spec]\npath = "app/rules"',
    '[artifacts.f]\npath = "app/rules/deep/f.md"',
    '[artifacts.appx]\npath = "appx"', // a sibling whose name shares a prefix
  ].join("\n") + "\n";
  const files = { "app/rules/deep/f.md": "", "appx/y": "" };
  const ws = await expectLoads(toml, files);
  const get = (id: string) => ws.artifacts.get(id)!;
  assert.equal(get("top").parent, undefined);
  assert.deepEqual(get("top").children, { app: "app", appx: "appx" });
  assert.equal(get("app").parent, "top");
  assert.deepEqual(get("app").children, { rules: "spec" });
  assert.equal(get("spec").parent, "app");
  assert.deepEqual(get("spec").children, { deep: "deep" });
  assert.equal(get("deep").parent, "spec");
  assert.deepEqual(get("deep").children, { "f.md": "f" });
  assert.equal(get("f").parent, "deep");
  assert.equal(get("appx").parent, "top");
});

// DESIGN: "An eval's scope is its Artifact, that Artifact's descendants, and `references`."
Deno.test("eval scope: the Artifact, its descendants, its references — nothing else", async () => {
  const toml = [
    '[artifacts.app]\npath = "app"',
    '[artifacts.spec]\npath = "app/rules"',
    '[artifacts.deep]\npath = "app/rules/deep"',
    '[artifacts.notes]\npath = "docs/notes.md"',
    '[artifacts.other]\npath = "other"',
    '[artifacts.app.evals.review]\naudience = "agent"\nreferences = ["notes"]',
    '[artifacts.spec.evals.rules]\naudience = "agent"',
  ].join("\n") + "\n";
  const files = { "app/rules/deep/x": "", "docs/notes.md": "", "other/y": "" };
  const ws = await expectLoads(toml, files);
  assert.deepEqual(evalScope(ws, "app/review"), ["app", "spec", "deep", "notes"]);
  assert.deepEqual(evalScope(ws, "spec/rules"), ["spec", "deep"]);
});

Deno.test("eval references to unknown Artifacts are rejected", async () => {
  await expectProblem(BASE_TOML + 'references = ["app", "nope"]\n', BASE_FILES, {
    keyPath: "artifacts.app.evals.review.references[1]",
    message: /names no Artifact `nope`/,
  });
});

Deno.test("eval: audience is required and is agent or human", async () => {
  await expectProblem('[artifacts.app]\npath = "app"\n[artifacts.app.evals.e]\n', BASE_FILES, {
    keyPath: "artifacts.app.evals.e.audience",
    message: /required/,
  });
  await expectProblem(BASE_TOML.replace('"agent"', '"robot"'), BASE_FILES, {
    keyPath: "artifacts.app.evals.review.audience",
    message: /"agent" or "human"/,
  });
  await expectProblem(BASE_TOML + 'references = "notes"\n', BASE_FILES, {
    keyPath: "artifacts.app.evals.review.references",
    message: /array of strings/,
  });
});

// Seed: "JSON-protocol argv may use existing scoped Artifact references, but cannot add
// Artifacts outside the eval’s admitted scope."
Deno.test("{ artifact = ID } operands: in scope ok, outside the eval's scope rejected", async () => {
  const files = { ...BASE_FILES, "other/x": "", "app/rules/r.md": "" };
  const head = BASE_TOML + '[artifacts.other]\npath = "other"\n[artifacts.spec]\n' +
    'path = "app/rules"\n';
  // own Artifact and a descendant are in scope
  await expectLoads(
    head +
      toolTable("app", "x", { ...JSON_TOOL, args: [{ artifact: "app" }, { artifact: "spec" }] }),
    files,
  );
  // another Artifact is not, until referenced
  const out = head + toolTable("app", "x", { ...JSON_TOOL, args: ["a", { artifact: "other" }] });
  await expectProblem(out, files, {
    keyPath: "artifacts.app.views.agent_tools.x.args[1]",
    message: /`other` is outside the scope of eval `app\/review`.*references/,
  });
  await expectLoads(
    out.replace('audience = "agent"\n', 'audience = "agent"\nreferences = ["other"]\n'),
    files,
  );
});

Deno.test("{ artifact = ID } naming no Artifact is rejected, even outside any eval", async () => {
  const toml = '[artifacts.app]\npath = "app"\n' +
    toolTable("app", "x", { ...JSON_TOOL, args: [{ artifact: "ghost" }] });
  await expectProblem(toml, BASE_FILES, {
    keyPath: "artifacts.app.views.agent_tools.x.args[0]",
    message: /names no Artifact `ghost`/,
  });
});

Deno.test("a human eval does not judge the scope of agent tool operands", async () => {
  const files = { ...BASE_FILES, "other/x": "" };
  const toml = '[artifacts.app]\npath = "app"\n[artifacts.other]\npath = "other"\n' +
    '[artifacts.app.evals.agent]\naudience = "agent"\nreferences = ["other"]\n' +
    '[artifacts.app.evals.human]\naudience = "human"\n' +
    toolTable("app", "x", { ...JSON_TOOL, args: [{ artifact: "other" }] });
  await expectLoads(toml, files);
});

Deno.test("session argv operands are checked against the eval's scope too", async () => {
  const files = { ...BASE_FILES, "other/x": "" };
  const toml = BASE_TOML + '[artifacts.other]\npath = "other"\n' +
    "[artifacts.app.views.agent_sessions.s]\n" +
    'start = { command = "sh", args = [{ artifact = "other" }] }\n' +
    'stop = { command = "sh", args = [] }\n';
  await expectProblem(toml, files, {
    keyPath: "artifacts.app.views.agent_sessions.s.start.args[0]",
    message: /outside the scope/,
  });
});

Deno.test("unknown keys on Artifacts, evals and views → did-you-mean", async () => {
  const cases: [string, string, RegExp][] = [
    ['[artifacts.app]\npth = "app"\npath = "app"\n', "artifacts.app.pth", /`path`/],
    [BASE_TOML + "audiance = 1\n", "artifacts.app.evals.review.audiance", /`audience`/],
    [BASE_TOML + "referenes = []\n", "artifacts.app.evals.review.referenes", /`references`/],
    [
      BASE_TOML + '[artifacts.app.views.agent_tool.x]\nbuiltin = "read"\n',
      "artifacts.app.views.agent_tool",
      /`agent_tools`/,
    ],
    [
      BASE_TOML + '[artifacts.app.views.human_tool.x]\nbuiltin = "read"\n',
      "artifacts.app.views.human_tool",
      /`human_tools`/,
    ],
  ];
  for (const [toml, keyPath, hint] of cases) {
    const [p] = (await expectProblem(toml, BASE_FILES, { keyPath, message: /unknown key/ }))
      .filter((x) => x.keyPath === keyPath);
    assert.match(p.message, hint);
  }
});

Deno.test("an unknown view key is located on the line that introduces it", async () => {
  const toml = BASE_TOML + '\n[artifacts.app.views.agent_tool.x]\nbuiltin = "read"\n';
  await expectProblem(toml, BASE_FILES, { keyPath: "artifacts.app.views.agent_tool", line: 7 });
});

Deno.test("wrong types for artifact tables, evals and views", async () => {
  await expectProblem("[artifacts]\napp = 5\n", BASE_FILES, {
    keyPath: "artifacts.app",
    message: /must be a table, not a number/,
  });
  await expectProblem('[artifacts.app]\npath = "app"\nevals = 1\n', BASE_FILES, {
    keyPath: "artifacts.app.evals",
    message: /must be a table/,
  });
  await expectProblem('[artifacts.app]\npath = "app"\nviews = []\n', BASE_FILES, {
    keyPath: "artifacts.app.views",
    message: /must be a table, not an array/,
  });
  await expectProblem('artifacts = "app"\n', BASE_FILES, {
    keyPath: "artifacts",
    message: /must be a table/,
  });
});

Deno.test("multiple problems are all reported at once", async () => {
  const toml = [
    "bogus = 1",
    '[artifacts.app]\npath = "nope"\npth = "x"',
    '[artifacts.b]\npath = "/abs"',
    '[artifacts.c]\npath = "app"',
    '[artifacts.c.evals.e]\naudience = "robot"',
  ].join("\n") + "\n" + toolTable("c", "x", { ...JSON_TOOL, protocol: "xml", timeout_ms: 0 });
  const problems = await problemsOf(toml);
  const keys = problems.map((p) => p.keyPath).sort();
  assert.deepEqual(keys, [
    "artifacts.app.path",
    "artifacts.app.pth",
    "artifacts.b.path",
    "artifacts.c.evals.e.audience",
    "artifacts.c.views.agent_tools.x.protocol",
    "artifacts.c.views.agent_tools.x.timeout_ms",
    "bogus",
  ]);
  for (const p of problems) assert.equal(typeof p.line, "number", p.keyPath);
  assert.equal(problems.find((p) => p.keyPath === "bogus")!.line, 1);
});
