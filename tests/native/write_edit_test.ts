import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { appTree, call, err, fileView, type Json, nativeEnv, ok, snapshot } from "./_helpers.ts";

function leftovers(dir: string): string[] {
  return fs.readdirSync(dir, { recursive: true }).map(String).filter((n) =>
    n.includes(".toolhost-")
  );
}

Deno.test("files_write: creates the file and its parents; overwrites keeping the mode", async () => {
  const t = appTree({ "old.sh": "echo old\n" });
  try {
    fs.chmodSync(`${t.app}/old.sh`, 0o750);
    const c: Json = ok(await call("files_write", { path: "a/b/c.txt", content: "hé\n" }, t.e));
    assert.deepEqual([c.path, c.bytesWritten, c.created], ["a/b/c.txt", 4, true]);
    assert.equal(fs.readFileSync(`${t.app}/a/b/c.txt`, "utf8"), "hé\n");
    const o: Json = ok(await call("files_write", { path: "old.sh", content: "echo new\n" }, t.e));
    assert.equal(o.created, false);
    assert.equal(fs.readFileSync(`${t.app}/old.sh`, "utf8"), "echo new\n");
    assert.equal(fs.statSync(`${t.app}/old.sh`).mode & 0o777, 0o750);
    const e = err(
      await call("files_write", { path: "x/y.txt", content: "", createParents: false }, t.e),
    );
    assert.match(e, /The folder `x` does not exist/);
    assert.ok(!fs.existsSync(`${t.app}/x`));
    assert.deepEqual(leftovers(t.app), []);
  } finally {
    t.rm();
  }
});

Deno.test("files_write: a hard-linked target is refused, never written through", async () => {
  const t = appTree({ "f.txt": "inside\n" });
  try {
    fs.writeFileSync(`${t.root}/outside.txt`, "outside\n");
    fs.rmSync(`${t.app}/f.txt`);
    fs.linkSync(`${t.root}/outside.txt`, `${t.app}/f.txt`);
    assert.match(
      err(await call("files_write", { path: "f.txt", content: "changed\n" }, t.e)),
      /has other hard links/,
    );
    assert.equal(fs.readFileSync(`${t.root}/outside.txt`, "utf8"), "outside\n");
    assert.equal(fs.readFileSync(`${t.app}/f.txt`, "utf8"), "outside\n");
  } finally {
    t.rm();
  }
});

Deno.test("files_write: folders, the root and symlinked targets are refused", async () => {
  const t = appTree({ "d/x": "x", "link.txt": { symlink: "d/x" } });
  try {
    assert.match(
      err(await call("files_write", { path: "d", content: "" }, t.e)),
      /`d` is a folder/,
    );
    assert.match(err(await call("files_write", { path: "link.txt", content: "" }, t.e)), /symlink/);
    assert.equal(fs.readFileSync(`${t.app}/d/x`, "utf8"), "x");
  } finally {
    t.rm();
  }
});

Deno.test("files_edit: oldText must occur exactly once — 0, 1 and 2 occurrences", async () => {
  const t = appTree({ "a.txt": "alpha beta beta gamma\n" });
  try {
    const zero = err(
      await call("files_edit", { path: "a.txt", oldText: "delta", newText: "x" }, t.e),
    );
    assert.match(zero, /it occurs 0 times/);
    const two = err(
      await call("files_edit", { path: "a.txt", oldText: "beta", newText: "x" }, t.e),
    );
    assert.match(two, /it occurs 2 times/);
    assert.ok(!two.includes("beta"), "the message never echoes the text");
    assert.equal(fs.readFileSync(`${t.app}/a.txt`, "utf8"), "alpha beta beta gamma\n");
    const one: Json = ok(
      await call("files_edit", { path: "a.txt", oldText: "alpha", newText: "ALPHA" }, t.e),
    );
    assert.deepEqual([one.replaced, one.bytes], [1, 22]);
    assert.equal(fs.readFileSync(`${t.app}/a.txt`, "utf8"), "ALPHA beta beta gamma\n");
    assert.deepEqual(leftovers(t.app), []);
  } finally {
    t.rm();
  }
});

Deno.test("files_edit: missing and non-UTF-8 files are refused", async () => {
  const t = appTree({ bin: new Uint8Array([0xff, 0x61]) });
  try {
    assert.match(
      err(await call("files_edit", { path: "nope", oldText: "a", newText: "b" }, t.e)),
      /does not exist/,
    );
    assert.match(
      err(await call("files_edit", { path: "bin", oldText: "a", newText: "b" }, t.e)),
      /not UTF-8/,
    );
  } finally {
    t.rm();
  }
});

Deno.test("a file Artifact: its own file is rewritten in place; nothing else is written", async () => {
  const t = appTree();
  try {
    const file = path.join(t.root, "docs", "notes.md");
    fs.mkdirSync(path.dirname(file));
    fs.writeFileSync(file, "one\n");
    const e = nativeEnv(fileView("notes", file), t.state);
    const before = snapshot(t.root, (r) => r.startsWith("state"));
    ok(await call("files_edit", { path: "notes.md", oldText: "one", newText: "two" }, e));
    ok(await call("files_write", { path: "notes.md", content: "three\n" }, e));
    assert.equal(fs.readFileSync(file, "utf8"), "three\n");
    assert.equal(
      err(await call("files_write", { path: "other.md", content: "x" }, e)).includes(
        "exposes only",
      ),
      true,
    );
    const after = snapshot(t.root, (r) => r.startsWith("state"));
    assert.deepEqual(
      Object.keys(after),
      Object.keys(before),
      "no entry was created beside the file",
    );
  } finally {
    t.rm();
  }
});
