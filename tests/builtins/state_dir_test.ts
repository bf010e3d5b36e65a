/**
 * The registry's state directory is never reachable through the built-ins or the native
 * file tools, even when the declaring Artifact's folder contains it (`path = "."`).
 *
 * @module
 */

import fs from "node:fs";
import path from "node:path";
import assert from "node:assert/strict";
import { loadWorkspace } from "../../lib/workspace/load_workspace.ts";
import { Registry } from "../../lib/registry/registry.ts";
import type { ToolResult } from "../../lib/results/types.ts";

const SECRET = "stateonly-marker-9f2";
const TOOLS = [
  "read",
  "list",
  "grep",
  "glob",
  "files_read",
  "files_list",
  "files_find",
  "files_search",
  "files_inspect",
  "files_write",
  "files_edit",
];

function workspace(): string {
  const root = fs.realpathSync(Deno.makeTempDirSync({ prefix: "toolhost-statedir-" }));
  const decls = TOOLS.map((t) => `[artifacts.root.views.agent_tools.${t}]\nbuiltin = "${t}"\n`);
  fs.writeFileSync(
    path.join(root, "toolhost.toml"),
    `[artifacts.root]\npath = "."\n\n[artifacts.root.evals.review]\naudience = "agent"\n\n` +
      decls.join("\n"),
  );
  fs.writeFileSync(path.join(root, "notes.txt"), `public ${SECRET.slice(0, 6)}\n`);
  const state = path.join(root, ".toolhost", "state");
  fs.mkdirSync(path.join(state, "artifacts", "r1"), { recursive: true });
  fs.writeFileSync(path.join(state, "artifacts", "r1", "out.txt"), `${SECRET}\n`);
  fs.writeFileSync(path.join(state, "plugins.log"), `${SECRET}\n`);
  return root;
}

function text(r: ToolResult): string {
  return JSON.stringify(r.content);
}

Deno.test("state dir: a folder Artifact at '.' cannot read, list, search or write it", async () => {
  const root = workspace();
  const reg = await Registry.open(await loadWorkspace(root), "root/review", { env: {} });
  try {
    const denied: [string, Record<string, unknown>][] = [
      ["read_root", { path: ".toolhost/state/plugins.log" }],
      ["read_root", { path: ".toolhost/state/artifacts/r1/out.txt" }],
      ["files_read_root", { path: ".toolhost/state/artifacts/r1/out.txt" }],
      ["files_inspect_root", { path: ".toolhost/state/plugins.log" }],
      ["list_root", { path: ".toolhost/state" }],
      ["files_list_root", { path: ".toolhost/state/artifacts" }],
      ["files_write_root", { path: ".toolhost/state/plugins.log", content: "x" }],
      ["files_write_root", { path: ".toolhost/state/new/planted.txt", content: "x" }],
      ["files_edit_root", {
        path: ".toolhost/state/plugins.log",
        oldText: SECRET,
        newText: "y",
      }],
    ];
    for (const [tool, args] of denied) {
      const r = await reg.call(tool, args);
      assert.equal(r.isError, true, `${tool} ${JSON.stringify(args)} was not refused`);
      assert.ok(!text(r).includes(SECRET), `${tool} leaked state content`);
    }
    // Traversals from the root skip the state dir entirely.
    const walks: [string, Record<string, unknown>][] = [
      ["grep_root", { pattern: "stateonly" }],
      ["grep_root", { pattern: "stateonly", path: ".toolhost" }],
      ["files_search_root", { query: "stateonly" }],
      ["glob_root", { pattern: "**/*" }],
      ["list_root", { path: ".", depth: 6 }],
      ["files_list_root", { path: ".", depth: 6 }],
      ["files_find_root", { path: "." }],
    ];
    for (const [tool, args] of walks) {
      const r = await reg.call(tool, args);
      const t = text(r);
      assert.ok(!t.includes(SECRET), `${tool} reached state content`);
      assert.ok(!t.includes("plugins.log") && !t.includes("out.txt"), `${tool} listed state`);
    }
    // Other files stay readable and searchable.
    const ok = await reg.call("read_root", { path: "notes.txt" });
    assert.equal(ok.isError, false);
    assert.ok(text(ok).includes("public"));
    const g = await reg.call("files_search_root", { query: "public" });
    assert.ok(text(g).includes("notes.txt"));
    // Nothing was written inside the state dir.
    const state = path.join(root, ".toolhost", "state");
    assert.equal(fs.readFileSync(path.join(state, "plugins.log"), "utf8"), `${SECRET}\n`);
    assert.equal(fs.existsSync(path.join(state, "new")), false);
  } finally {
    await reg.close();
    fs.rmSync(root, { recursive: true, force: true });
  }
});

Deno.test("state dir: refused by identity, also when set elsewhere with stateDir", async () => {
  const root = workspace();
  const custom = path.join(root, "data", "st");
  fs.mkdirSync(custom, { recursive: true });
  fs.writeFileSync(path.join(custom, "audit.log"), `${SECRET}\n`);
  const reg = await Registry.open(await loadWorkspace(root), "root/review", {
    env: {},
    stateDir: custom,
  });
  try {
    const r = await reg.call("files_read_root", { path: "data/st/audit.log" });
    assert.equal(r.isError, true);
    const g = await reg.call("grep_root", { pattern: "stateonly", path: "data" });
    assert.ok(!text(g).includes(SECRET));
    // The default-location folder is an ordinary folder when the state lives elsewhere.
    const d = await reg.call("read_root", { path: ".toolhost/state/plugins.log" });
    assert.equal(d.isError, false);
  } finally {
    await reg.close();
    fs.rmSync(root, { recursive: true, force: true });
  }
});
