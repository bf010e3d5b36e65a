/**
 * The adversarial path corpus of the built-ins (tests/paths/sandbox_test.ts) replayed
 * against every write tool: no write ever lands outside the Artifact, whatever the path,
 * symlink layout or concurrent swap.
 */

import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { createHash } from "node:crypto";
import type { NativeName } from "../../lib/native/specs.ts";
import { call, folderView, makeTree, nativeEnv, noPhysical, snapshot } from "./_helpers.ts";

const SECRET = "SECRET-CONTENT";

function corpus() {
  const t = makeTree({
    "secret.txt": `${SECRET}\n`,
    "outside/s.txt": `${SECRET}\n`,
    "root-evil/secret2.txt": `${SECRET}\n`,
    "root/a.txt": "inside\n",
    "root/dir/b.txt": "inside b\n",
    "root/dir/link_file": { symlink: "../../secret.txt" },
    "root/dir/link_dir": { symlink: "../../outside" },
    "root/link_file": { symlink: "../secret.txt" },
    "root/link_dir": { symlink: "../outside" },
    "root/link_inside": { symlink: "a.txt" },
    "root/link_inside_dir": { symlink: "dir" },
    "root/link_sibling": { symlink: "../root-evil" },
    "root/link_abs": { symlink: "/etc" },
    "root/dangling": { symlink: "../nope" },
    "root/dangling_dir": { symlink: "../nope_dir" },
    "root/priv/p.txt": `${SECRET}\n`,
  });
  const root = path.join(t.root, "root");
  // The state dir lives outside the tree: the sandbox creates it (mode 0700) to deny it.
  const state = Deno.makeTempDirSync({ prefix: "toolhost-adv-state-" });
  const e = nativeEnv(folderView("app", root), state, {}, {
    priv: { view: folderView("priv", path.join(root, "priv")), admitted: false },
  });
  const rm = () => {
    t.rm();
    Deno.removeSync(state, { recursive: true });
  };
  return { ...t, root, outer: t.root, e, rm };
}

/** Paths that must never be written (they reach outside, or through a symlink, or a refused Artifact). */
const HOSTILE = [
  "link_file",
  "link_dir/s.txt",
  "link_dir/new.txt",
  "link_dir/deep/new.txt",
  "dir/link_file",
  "dir/link_dir/s.txt",
  "dir/link_dir/new/deep.txt",
  "link_inside",
  "link_inside_dir/b.txt",
  "link_inside_dir/new.txt",
  "link_sibling/secret2.txt",
  "link_sibling/new.txt",
  "link_abs/passwd",
  "link_abs/toolhost-new",
  "dangling",
  "dangling_dir/x.txt",
  "priv/p.txt",
  "priv/new.txt",
  "../secret.txt",
  "../outside/new.txt",
  "/etc/passwd",
  "/tmp/toolhost-adversarial.txt",
  "dir/../../secret.txt",
  "dir/./b.txt",
  "dir//b.txt",
  "dir/",
  "C:/x.txt",
  "a\\..\\..\\secret.txt",
  "a.txt\u0000",
  ".",
  "",
];

function writeArgs(tool: NativeName, p: string): Record<string, unknown> {
  if (tool === "files_write") return { path: p, content: "PWNED\n" };
  if (tool === "files_edit") return { path: p, oldText: SECRET, newText: "PWNED" };
  const body = p === "" ? "x" : p;
  return tool === "files_patch" && p.endsWith("new.txt")
    ? { patch: `--- /dev/null\n+++ b/${body}\n@@ -0,0 +1 @@\n+PWNED\n` }
    : { patch: `--- a/${body}\n+++ b/${body}\n@@ -1 +1 @@\n-${SECRET}\n+PWNED\n` };
}

function etcHash(): string {
  return createHash("sha256").update(fs.readFileSync("/etc/passwd")).digest("hex");
}

Deno.test("every write tool refuses the whole adversarial corpus; nothing outside changes", async () => {
  const c = corpus();
  const etc = etcHash();
  try {
    const outside = () => snapshot(c.outer, (r) => r === "root" || r.startsWith("root/"));
    const before = outside();
    const inside = snapshot(c.root);
    for (const tool of ["files_write", "files_edit", "files_patch"] as NativeName[]) {
      for (const p of HOSTILE) {
        let r;
        try {
          r = await call(tool, writeArgs(tool, p), c.e);
        } catch {
          continue; // refused by the schema (e.g. the empty path)
        }
        assert.equal(r.isError, true, `${tool} ${JSON.stringify(p)} must be refused`);
        noPhysical(r, c.outer);
      }
    }
    assert.deepEqual(outside(), before, "nothing outside the Artifact changed");
    assert.deepEqual(snapshot(c.root), inside, "and nothing inside either");
    assert.equal(etcHash(), etc);
    assert.ok(
      !fs.existsSync("/etc/toolhost-new") && !fs.existsSync("/tmp/toolhost-adversarial.txt"),
    );
    for (const missing of ["nope", "nope_dir"]) {
      assert.ok(!fs.existsSync(path.join(c.outer, missing)));
    }
  } finally {
    c.rm();
  }
});

Deno.test("look-alike names stay inside the Artifact", async () => {
  const c = corpus();
  try {
    for (const p of ["\u2024\u2024/x.txt", "\uff0e\uff0e/x.txt", "~/x.txt", "...", "..x/y.txt"]) {
      const r = await call("files_write", { path: p, content: "ok\n" }, c.e);
      assert.equal(r.isError, false, `${p}: ${JSON.stringify(r)}`);
      assert.equal(fs.readFileSync(path.join(c.root, p), "utf8"), "ok\n");
    }
  } finally {
    c.rm();
  }
});

Deno.test("race: a folder swapped for a symlink during writes never lets a write out", async () => {
  const c = corpus();
  const swapper = new Deno.Command("sh", {
    args: [
      "-c",
      "while :; do mv dir dir.real && ln -s ../outside dir && rm dir && mv dir.real dir; done",
    ],
    cwd: c.root,
    stdout: "null",
    stderr: "null",
  }).spawn();
  try {
    for (let i = 0; i < 150; i++) {
      await call("files_write", { path: `dir/race${i}.txt`, content: "x\n" }, c.e);
      await call("files_patch", {
        patch: `--- /dev/null\n+++ b/dir/sub${i}/p.txt\n@@ -0,0 +1 @@\n+x\n`,
      }, c.e);
    }
  } finally {
    swapper.kill("SIGKILL");
    await swapper.status;
  }
  try {
    const leaked = fs.readdirSync(path.join(c.outer, "outside")).filter((n) => n !== "s.txt");
    assert.deepEqual(leaked, [], "no write landed in the symlink's target");
    assert.equal(fs.readFileSync(path.join(c.outer, "outside", "s.txt"), "utf8"), `${SECRET}\n`);
  } finally {
    c.rm();
  }
});
