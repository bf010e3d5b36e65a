/**
 * The 64 MiB searched bound counts searched files only: a file skipped for being over
 * the 8 MiB per-file bound is not searched, so it uses none of it.
 */

import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { Buffer } from "node:buffer";
import { runBuiltin } from "../../lib/builtins/run.ts";
import { compileGrepPattern } from "../../lib/grep/regex.ts";
import { type GrepLimits, grepTarget } from "../../lib/grep/engine.ts";
import { Sandbox } from "../../lib/paths/sandbox.ts";
import { decl, env, folderView, type Json, makeTree, ok } from "./helpers.ts";

const MIB = 1024 * 1024;
const KIB = 1024;

Deno.test("oversized files are skipped without using the 64 MiB searched bound", async () => {
  const t = makeTree({ "z_small.txt": "NEEDLE\n" });
  try {
    const over = Buffer.alloc(8 * MIB + 1, "y"); // one byte over the per-file bound
    for (let i = 0; i < 8; i++) fs.writeFileSync(path.join(t.root, `a${i}`), over);
    const d = ok(
      await runBuiltin(decl("grep"), { pattern: "NEEDLE" }, env(folderView("app", t.root))),
    );
    assert.deepEqual(d.matches.map((m: Json) => m.path), ["z_small.txt"]);
    assert.equal(d.truncated, true); // files were skipped
  } finally {
    t.rm();
  }
});

async function grepDir(root: string, limits: Partial<GrepLimits>) {
  const box = Sandbox.open(root);
  try {
    return await grepTarget(
      { kind: "dir", box, dir: box.root, logical: "." },
      compileGrepPattern("needle"),
      { limits },
    );
  } finally {
    box.close();
  }
}

const bytes = (n: number, tail = "") =>
  Buffer.concat([Buffer.alloc(n - tail.length, "x\n"), Buffer.from(tail)]);

Deno.test("a skipped file is not counted; a file that fits only the per-file bound ends the search", async () => {
  const needle = "needle\n";
  const t = makeTree({
    "a": bytes(1000),
    "b": bytes(1000),
    "c": bytes(900), // 2,900 searched: 100 left
    "d": bytes(5000, needle), // over the per-file bound: skipped, not counted
    "e": needle, // searched (2,907)
    "f": bytes(500, needle), // fits the per-file bound but not what is left: the end
    "g": needle, // never searched
  });
  try {
    const out = await grepDir(t.root, { maxFileBytes: 1000, maxTotalBytes: 3000 });
    assert.deepEqual(out.matches.map((m) => m.path), ["e"]);
    assert.deepEqual([out.truncated, out.filesSearched, out.bytesSearched], [true, 4, 2907]);
  } finally {
    t.rm();
  }
});

Deno.test("the same past the first 64 KiB read (files measured before reading on)", async () => {
  const needle = "needle\n";
  const t = makeTree({
    "a": bytes(70 * KIB),
    "b": bytes(70 * KIB), // 140 KiB searched: 60 KiB left
    "c": bytes(MIB, needle), // oversized: skipped after one 64 KiB read
    "d": bytes(50 * KIB, needle), // searched: 190 KiB
    "e": bytes(70 * KIB, needle), // fits 80 KiB, not the 10 KiB left: the end
    "f": needle,
  });
  try {
    const out = await grepDir(t.root, { maxFileBytes: 80 * KIB, maxTotalBytes: 200 * KIB });
    assert.deepEqual(out.matches.map((m) => m.path), ["d"]);
    assert.deepEqual([out.truncated, out.bytesSearched], [true, 190 * KIB]);
    // Exactly at both bounds: everything is searched, nothing truncated.
    fs.rmSync(path.join(t.root, "c"));
    fs.rmSync(path.join(t.root, "f"));
    fs.writeFileSync(path.join(t.root, "e"), bytes(10 * KIB, needle));
    const at = await grepDir(t.root, { maxFileBytes: 80 * KIB, maxTotalBytes: 200 * KIB });
    assert.deepEqual([at.matches.map((m) => m.path), at.truncated], [["d", "e"], false]);
    assert.equal(at.bytesSearched, 200 * KIB);
  } finally {
    t.rm();
  }
});
