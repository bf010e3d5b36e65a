import assert from "node:assert/strict";
import path from "node:path";
import { Buffer } from "node:buffer";
import { runBuiltin } from "../../lib/builtins/run.ts";
import { findSection } from "../../lib/builtins/section.ts";
import { workspaceGraph } from "../../lib/builtins/graph.ts";
import {
  artifact,
  decl,
  env,
  err,
  folderView,
  type Json,
  makeTree,
  noPhysical,
  ok,
  workspace,
} from "./helpers.ts";

const DOC = [
  "# Title",
  "intro",
  "## Install",
  "step 1",
  "```sh",
  "# not a heading",
  "```",
  "### Sub",
  "detail",
  "## Usage ##",
  "use it",
  "# Next",
  "",
].join("\n");

Deno.test("findSection: heading text or line, same-or-higher level ends it, fences ignored", () => {
  assert.equal(
    findSection(DOC, "Install"),
    "## Install\nstep 1\n```sh\n# not a heading\n```\n### Sub\ndetail\n",
  );
  assert.equal(findSection(DOC, "## Usage"), "## Usage ##\nuse it\n");
  assert.equal(findSection(DOC, "### Usage"), null); // a heading line fixes the level
  assert.equal(findSection(DOC, "## Usage ##"), "## Usage ##\nuse it\n");
  assert.equal(findSection(DOC, "Usage"), "## Usage ##\nuse it\n");
  assert.equal(findSection(DOC, "Sub"), "### Sub\ndetail\n");
  assert.equal(findSection(DOC, "Next"), "# Next\n");
  assert.equal(findSection(DOC, "not a heading"), null);
  assert.equal(findSection("a\r\n## B\r\nb\r\n## C\r\n", "B"), "## B\r\nb\r\n");
});

Deno.test("section runs on its fixed target", async () => {
  const t = makeTree({
    "docs/guide.md": DOC,
    "docs/huge.md": "## H\n" + "x".repeat(70 * 1024) + "\n",
    "bin.md": Buffer.from([0xff, 0x0a]),
  });
  try {
    const e = env(folderView("app", t.root));
    const r = await runBuiltin(decl("section", ["docs/guide.md", "Usage"]), {}, e);
    assert.deepEqual(r, {
      content: [{ type: "text", text: "## Usage ##\nuse it\n" }],
      isError: false,
    });
    assert.match(
      err(await runBuiltin(decl("section", ["docs/guide.md", "Missing"]), {}, e)),
      /heading `Missing` was not found in `docs\/guide.md`/,
    );
    const huge = await runBuiltin(decl("section", ["docs/huge.md", "H"]), {}, e);
    const text = (huge.content[0] as { text: string }).text;
    assert.ok(Buffer.byteLength(text) <= 64 * 1024);
    assert.match(text, /truncated at 64 KiB/);
    assert.match(err(await runBuiltin(decl("section", ["bin.md", "x"]), {}, e)), /not valid UTF-8/);
    const missing = await runBuiltin(decl("section", ["nope.md", "x"]), {}, e);
    assert.match(err(missing), /does not exist/);
    noPhysical(missing, t.root);
  } finally {
    t.rm();
  }
});

Deno.test("graph prints the workspace structure without physical paths", async () => {
  const root = "/ws-root-physical";
  const app = artifact("app", "folder", root, "app", {
    children: { rules: "spec" },
    evals: {
      review: {
        name: "review",
        id: "app/review",
        artifactId: "app",
        audience: "agent",
        references: ["notes"],
        keyPath: "k",
      },
    },
    agentTools: { read: decl("read") },
    humanTools: { inspect: decl("list") },
  });
  const spec = artifact("spec", "folder", root, "app/rules", { parent: "app" });
  const notes = artifact("notes", "file", root, "docs/notes.md");
  const ws = workspace(root, [app, spec, notes]);
  const r = await runBuiltin(decl("graph", []), {}, env(folderView("app", `${root}/app`), {}, ws));
  const d = ok(r);
  assert.deepEqual(d.artifacts.map((a: Json) => [a.id, a.kind, a.path]), [
    ["app", "folder", "app"],
    ["spec", "folder", "app/rules"],
    ["notes", "file", "docs/notes.md"],
  ]);
  assert.deepEqual(d.artifacts[0].children, { rules: "spec" });
  assert.deepEqual(d.artifacts[0].evals, { review: { audience: "agent", references: ["notes"] } });
  assert.deepEqual(d.artifacts[0].tools, { agent: ["read"], human: ["inspect"] });
  assert.equal(d.artifacts[1].parent, "app");
  assert.equal(d.truncated, false);
  assert.ok(!JSON.stringify(r).includes(root));
  const small = workspaceGraph(ws, 200);
  assert.equal(small.truncated, true);
  assert.ok(Buffer.byteLength(JSON.stringify(small)) <= 200);
});

Deno.test("dispatch: every in-process built-in, fixed targets, help and errors as results", async () => {
  const t = makeTree({ "a.txt": "one\n", "d/b.txt": "two\n" });
  try {
    const e = env(folderView("app", t.root));
    assert.equal(ok(await runBuiltin(decl("read", ["a.txt"]), {}, e)).lines[0].text, "one\n");
    assert.equal(ok(await runBuiltin(decl("list", ["d"]), {}, e)).entries[0].name, "b.txt");
    assert.match(err(await runBuiltin(decl("help", ["x"]), {}, e)), /process/);
    const aborted = new AbortController();
    aborted.abort();
    const ce = env(folderView("app", t.root), {}, undefined, aborted.signal);
    assert.match(err(await runBuiltin(decl("grep"), { pattern: "x" }, ce)), /cancelled/);
    // A root that vanished is an error result, not a throw.
    const gone = env(folderView("app", path.join(t.root, "missing")));
    const r = await runBuiltin(decl("list"), {}, gone);
    assert.match(err(r), /does not exist/);
    noPhysical(r, t.root);
  } finally {
    t.rm();
  }
});
