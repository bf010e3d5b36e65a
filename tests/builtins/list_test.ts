import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { Buffer } from "node:buffer";
import { runBuiltin } from "../../lib/builtins/run.ts";
import { runList } from "../../lib/builtins/list.ts";
import {
  decl,
  env,
  err,
  fileView,
  folderView,
  type Json,
  makeTree,
  noPhysical,
  ok,
} from "./helpers.ts";

function fill(dir: string, n: number, prefix = "f"): void {
  fs.mkdirSync(dir, { recursive: true });
  for (let i = 0; i < n; i++) fs.writeFileSync(path.join(dir, `${prefix}${i}`), "");
}

Deno.test("entries are sorted with kinds file, directory, symlink and other", async () => {
  const t = makeTree({
    "b.txt": "b",
    "a": { dir: true },
    ".hidden": "h",
    "Z": "z",
    "link": { symlink: "b.txt" },
    "dangling": { symlink: "nowhere" },
  });
  new Deno.Command("mkfifo", { args: [path.join(t.root, "pipe")] }).outputSync();
  try {
    const e = env(folderView("app", t.root));
    const r = await runBuiltin(decl("list"), {}, e);
    const d = ok(r);
    assert.deepEqual(d.entries, [
      { name: ".hidden", kind: "file" },
      { name: "Z", kind: "file" },
      { name: "a", kind: "directory" },
      { name: "b.txt", kind: "file" },
      { name: "dangling", kind: "symlink" },
      { name: "link", kind: "symlink" },
      { name: "pipe", kind: "other" },
    ]);
    assert.deepEqual([d.artifactId, d.resolvedArtifactId, d.path, d.truncated], [
      "app",
      "app",
      ".",
      false,
    ]);
    noPhysical(r, t.root);
    assert.deepEqual(ok(await runBuiltin(decl("list"), { path: "." }, e)).entries, d.entries);
    assert.deepEqual(ok(await runBuiltin(decl("list"), { path: "a" }, e)).entries, []);
    assert.deepEqual(ok(await runBuiltin(decl("list", ["a"]), {}, e)).path, "a");
    assert.match(err(await runBuiltin(decl("list"), { path: "b.txt" }, e)), /not a folder/);
    assert.match(err(await runBuiltin(decl("list"), { path: "link" }, e)), /symlink/);
    assert.match(err(await runBuiltin(decl("list"), { path: "nope" }, e)), /does not exist/);
  } finally {
    t.rm();
  }
});

Deno.test("a file Artifact's virtual root lists just its file", async () => {
  const t = makeTree({ "docs/notes.md": "n", "docs/secret.md": "s" });
  try {
    const e = env(fileView("notes", path.join(t.root, "docs/notes.md")));
    for (const args of [{}, { path: "." }]) {
      const d = ok(await runBuiltin(decl("list"), args, e));
      assert.deepEqual(d.entries, [{ name: "notes.md", kind: "file" }]);
      assert.equal(d.artifactId, "notes");
    }
    assert.match(err(await runBuiltin(decl("list"), { path: "notes.md" }, e)), /is a file/);
    assert.match(err(await runBuiltin(decl("list"), { path: "secret.md" }, e)), /exposes only/);
  } finally {
    t.rm();
  }
});

Deno.test("10,000 entries list; 10,001 is an error, not a truncation", async () => {
  const t = makeTree({});
  try {
    fill(path.join(t.root, "big"), 10_000);
    const e = env(folderView("app", t.root));
    const d = ok(await runBuiltin(decl("list"), { path: "big" }, e));
    assert.equal(d.truncated, false);
    assert.equal(d.entries.length, 10_000);
    fs.writeFileSync(path.join(t.root, "big", "one-more"), "");
    const msg = err(await runBuiltin(decl("list"), { path: "big" }, e));
    assert.match(msg, /`big` has more than 10,000 entries/);
  } finally {
    t.rm();
  }
});

Deno.test("the result pages early at exactly 512 KiB", async () => {
  const t = makeTree({});
  try {
    const e = env(folderView("app", t.root));
    const base = { artifactId: "app", resolvedArtifactId: "app", path: "." };
    const envelope = Buffer.byteLength(JSON.stringify({ ...base, entries: [], truncated: false }));
    const entryCost = (name: string) => Buffer.byteLength(JSON.stringify({ name, kind: "file" }));
    // Fill to exactly 512 KiB with 200-character names plus one adjusted last name.
    let room = 512 * 1024 - envelope;
    const names: string[] = [];
    for (let i = 0; room - 1 - entryCost("x".repeat(200)) >= 27; i++) {
      const name = `a${String(i).padStart(5, "0")}`.padEnd(200, "x");
      room -= entryCost(name) + (names.length ? 1 : 0);
      names.push(name);
    }
    const lastLen = room - 1 - entryCost(""); // between 1 and 250 characters
    names.push(`b${"y".repeat(lastLen - 1)}`);
    for (const n of names) fs.writeFileSync(path.join(t.root, n), "");
    const at = ok(await runBuiltin(decl("list"), {}, e));
    assert.equal(at.truncated, false);
    assert.equal(Buffer.byteLength(JSON.stringify(at)), 512 * 1024);
    // One byte more: the last entry no longer fits.
    fs.renameSync(path.join(t.root, names.at(-1) as string), path.join(t.root, names.at(-1) + "z"));
    const over = ok(await runBuiltin(decl("list"), {}, e));
    assert.equal(over.truncated, true);
    assert.equal(over.entries.length, names.length - 1);
    assert.ok(Buffer.byteLength(JSON.stringify(over)) <= 512 * 1024);
    // A smaller cap pages earlier.
    const small = ok(await runList({}, e, 1024));
    assert.equal(small.truncated, true);
    assert.ok(small.entries.length < names.length);
    assert.ok(small.entries.every((x: Json) => typeof x.name === "string"));
  } finally {
    t.rm();
  }
});

Deno.test("non-admitted descendants are listed by name but cannot be entered", async () => {
  const t = makeTree({ "rules/a.md": "a", "x.txt": "x" });
  try {
    const e = env(folderView("app", t.root), {
      rules: { view: folderView("spec", path.join(t.root, "rules")), admitted: false },
    });
    const d = ok(await runBuiltin(decl("list"), {}, e));
    assert.deepEqual(d.entries.map((x: Json) => x.name), ["rules", "x.txt"]);
    assert.match(err(await runBuiltin(decl("list"), { path: "rules" }, e)), /not admit/);
  } finally {
    t.rm();
  }
});
