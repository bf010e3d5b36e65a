/**
 * The workspace's trust anchors — `toolhost.toml` (what is declared) and `toolhost.lock`
 * (what may run) — are never changed by the in-process write tools, even when the
 * declaring Artifact is the workspace root. A confined tool already sees them read-only
 * (lib/sandbox/trust_anchors.ts); without this, `files_write` on an Artifact at `.` could
 * declare a new command tool and rewrite the lock to match, deciding what runs unconfined
 * at the next start.
 */

import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import type { NativeName } from "../../lib/native/specs.ts";
import { call, fileView, folderView, makeTree, nativeEnv, noPhysical } from "./_helpers.ts";
import { workspace } from "../builtins/helpers.ts";

const MANIFEST = '[artifacts.root]\npath = "."\n';
const LOCK = '{"format":2}\n';

function rootTree(withLock: boolean) {
  const t = makeTree({
    "toolhost.toml": MANIFEST,
    ...(withLock ? { "toolhost.lock": LOCK } : {}),
    "app/toolhost.toml": MANIFEST,
    "notes.md": "notes\n",
  });
  const state = Deno.makeTempDirSync({ prefix: "toolhost-anchor-state-" });
  const ws = workspace(t.root, []);
  const e = nativeEnv(folderView("root", t.root), state, { workspace: ws });
  return { ...t, e, ws, state };
}

function edits(tool: NativeName, p: string, old: string): Record<string, unknown>[] {
  const first = old.split("\n")[0];
  if (tool === "files_write") return [{ path: p, content: "PWNED\n" }];
  if (tool === "files_edit") return [{ path: p, oldText: first, newText: "PWNED" }];
  return [
    { patch: `--- a/${p}\n+++ b/${p}\n@@ -1 +1 @@\n-${first}\n+PWNED\n` },
    { patch: `--- a/${p}\n+++ /dev/null\n@@ -1,${old.split("\n").length - 1} +0,0 @@\n` },
  ];
}

const WRITERS: NativeName[] = ["files_write", "files_edit", "files_patch"];

Deno.test("no write tool changes toolhost.toml or toolhost.lock of an Artifact at the root", async () => {
  const c = rootTree(true);
  try {
    for (const tool of WRITERS) {
      for (const [name, body] of [["toolhost.toml", MANIFEST], ["toolhost.lock", LOCK]]) {
        for (const args of edits(tool, name, body)) {
          const r = await call(tool, args, c.e);
          assert.equal(r.isError, true, `${tool} ${JSON.stringify(args)} must be refused`);
          noPhysical(r, c.root);
        }
      }
    }
    assert.equal(fs.readFileSync(path.join(c.root, "toolhost.toml"), "utf8"), MANIFEST);
    assert.equal(fs.readFileSync(path.join(c.root, "toolhost.lock"), "utf8"), LOCK);
  } finally {
    c.rm();
    fs.rmSync(c.state, { recursive: true, force: true });
  }
});

Deno.test("a write tool creates no toolhost.lock at the root, in any spelling", async () => {
  const c = rootTree(false);
  try {
    for (const name of ["toolhost.lock", "TOOLHOST.LOCK", "toolhost.lock.", "Toolhost.Toml "]) {
      const r = await call("files_write", { path: name, content: "{}\n" }, c.e);
      assert.equal(r.isError, true, `${JSON.stringify(name)} must be refused`);
      const p = await call("files_patch", {
        patch: `--- /dev/null\n+++ b/${name}\n@@ -0,0 +1 @@\n+{}\n`,
      }, c.e);
      assert.equal(p.isError, true, `patch creating ${JSON.stringify(name)} must be refused`);
    }
    assert.deepEqual(fs.readdirSync(c.root).sort(), ["app", "notes.md", "toolhost.toml"]);
  } finally {
    c.rm();
    fs.rmSync(c.state, { recursive: true, force: true });
  }
});

Deno.test("a file Artifact that is the manifest itself is not rewritten in place", async () => {
  const c = rootTree(true);
  try {
    const e = nativeEnv(fileView("m", path.join(c.root, "toolhost.toml")), c.state, {
      workspace: c.ws,
    });
    const r = await call("files_write", { path: "toolhost.toml", content: "x\n" }, e);
    assert.equal(r.isError, true);
    assert.equal(fs.readFileSync(path.join(c.root, "toolhost.toml"), "utf8"), MANIFEST);
  } finally {
    c.rm();
    fs.rmSync(c.state, { recursive: true, force: true });
  }
});

Deno.test("files named like the anchors below the root stay writable", async () => {
  const c = rootTree(true);
  try {
    const r = await call("files_write", { path: "app/toolhost.toml", content: "x\n" }, c.e);
    assert.equal(r.isError, false);
    assert.equal(fs.readFileSync(path.join(c.root, "app/toolhost.toml"), "utf8"), "x\n");
    const n = await call("files_write", { path: "notes.md", content: "y\n" }, c.e);
    assert.equal(n.isError, false);
  } finally {
    c.rm();
    fs.rmSync(c.state, { recursive: true, force: true });
  }
});
