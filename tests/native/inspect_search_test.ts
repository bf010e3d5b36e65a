import assert from "node:assert/strict";
import fs from "node:fs";
import { NATIVE_LIMITS } from "../../lib/native/limits.ts";
import { runFilesSearch } from "../../lib/native/search.ts";
import { admits, appTree, call, type Json, ok } from "./_helpers.ts";

Deno.test("files_inspect: kind, size, mode, mtime, lines and encoding", async () => {
  const t = appTree({
    "a.txt": "one\ntwo\nthree",
    "u.txt": "héllo\n",
    "bom.txt": new Uint8Array([0xef, 0xbb, 0xbf, 0x68, 0x0a]),
    "w.txt": new Uint8Array([0xff, 0xfe, 0x68, 0x00]),
    "bin": new Uint8Array([1, 0, 2]),
    "empty": "",
    "dir/x": "x",
    "link": { symlink: "a.txt" },
  });
  try {
    fs.chmodSync(`${t.app}/a.txt`, 0o640);
    const a: Json = ok(await call("files_inspect", { path: "a.txt" }, t.e));
    assert.deepEqual([a.kind, a.size, a.mode, a.lineCount, a.encoding], [
      "file",
      13,
      "0640",
      3,
      "ascii",
    ]);
    assert.ok(!Number.isNaN(Date.parse(a.mtime)));
    const enc = async (p: string) =>
      (ok(await call("files_inspect", { path: p }, t.e)) as Json).encoding;
    assert.equal(await enc("u.txt"), "utf-8");
    assert.equal(await enc("bom.txt"), "utf-8-bom");
    assert.equal(await enc("w.txt"), "utf-16le");
    assert.equal(await enc("bin"), "binary");
    assert.equal(await enc("empty"), "empty");
    const d: Json = ok(await call("files_inspect", { path: "dir" }, t.e));
    assert.equal(d.kind, "directory");
    const l: Json = ok(await call("files_inspect", { path: "link" }, t.e));
    assert.deepEqual(Object.keys(l).sort(), ["artifactId", "kind", "path", "resolvedArtifactId"]);
    assert.equal(l.kind, "symlink");
    const m: Json = ok(await call("files_inspect", { path: "nope" }, t.e));
    assert.equal(m.kind, "missing");
  } finally {
    t.rm();
  }
});

Deno.test("files_search: literal and case-sensitive; regex characters are literal", async () => {
  const t = appTree({ "a.ts": "const x = a.b(c);\nCONST y\nconst z\n", "b.md": "a.b(c) here\n" });
  try {
    const r: Json = ok(await call("files_search", { query: "a.b(c)" }, t.e));
    assert.deepEqual(r.matches, [
      { path: "a.ts", line: 1, column: 11, text: "const x = a.b(c);" },
      { path: "b.md", line: 1, column: 1, text: "a.b(c) here" },
    ]);
    const cs: Json = ok(await call("files_search", { query: "const" }, t.e));
    assert.deepEqual(cs.matches.map((m: Json) => m.line), [1, 3]);
    const g: Json = ok(await call("files_search", { query: "a.b", glob: "*.md" }, t.e));
    assert.deepEqual(g.matches.map((m: Json) => m.path), ["b.md"]);
    const one: Json = ok(await call("files_search", { query: "z", path: "a.ts" }, t.e));
    assert.deepEqual(one.matches.map((m: Json) => m.line), [3]);
  } finally {
    t.rm();
  }
});

Deno.test("files_search: default 200 matches — 199, 200 and 201 matching lines", async () => {
  assert.equal(NATIVE_LIMITS.searchDefaultMatches, 200);
  for (const [n, truncated] of [[199, false], [200, false], [201, true]] as const) {
    const t = appTree({ "f.txt": "hit\n".repeat(n) });
    try {
      const r: Json = ok(await call("files_search", { query: "hit" }, t.e));
      assert.deepEqual([r.matches.length, r.truncated], [Math.min(n, 200), truncated], `n=${n}`);
    } finally {
      t.rm();
    }
  }
  assert.ok(admits("files_search", { query: "x", maxMatches: NATIVE_LIMITS.searchMaxMatches }));
  assert.ok(
    !admits("files_search", { query: "x", maxMatches: NATIVE_LIMITS.searchMaxMatches + 1 }),
  );
  assert.ok(admits("files_search", { query: "x".repeat(1000) }));
  assert.ok(!admits("files_search", { query: "x".repeat(1001) }));
});

Deno.test("files_search: files over 4 MiB are skipped — at, below and above the figure", async () => {
  const MAX = NATIVE_LIMITS.searchMaxFileBytes;
  assert.equal(MAX, 4 * 1024 * 1024);
  const pad = (n: number) => "needle\n" + "x".repeat(n - 7);
  const t = appTree({ at: pad(MAX), below: pad(MAX - 1), above: pad(MAX + 1) });
  try {
    const r: Json = ok(await call("files_search", { query: "needle" }, t.e));
    assert.deepEqual(r.matches.map((m: Json) => m.path), ["at", "below"]);
    assert.equal(r.skipped.oversized, 1);
    assert.match(r.warnings.join("\n"), /1 files over 4194304 bytes were skipped/);
  } finally {
    t.rm();
  }
});

Deno.test("files_search: the cumulative scan budget stops the search (truncated)", async () => {
  const t = appTree({ a: "n\n".repeat(50), b: "n\n".repeat(50), c: "n\n".repeat(50) });
  try {
    const at: Json = ok(await runFilesSearch({ query: "n" }, t.e, { scanBudget: 300 }));
    assert.deepEqual([at.bytesScanned, at.truncated, at.matches.length], [300, false, 150]);
    const below: Json = ok(await runFilesSearch({ query: "n" }, t.e, { scanBudget: 299 }));
    assert.deepEqual([below.bytesScanned, below.truncated], [200, true]);
    assert.match(below.warnings[0], /scan budget of 299 bytes was used up/);
  } finally {
    t.rm();
  }
});

Deno.test("files_search: binary files and symlinked folders are skipped", async () => {
  const t = appTree({
    "bin": new Uint8Array([110, 0, 110]),
    "real/x.txt": "n\n",
    "link": { symlink: "real" },
    "out": { symlink: "../state" },
  });
  fs.mkdirSync(t.state, { recursive: true });
  fs.writeFileSync(`${t.state}/secret.txt`, "n\n");
  try {
    const r: Json = ok(await call("files_search", { query: "n" }, t.e));
    assert.deepEqual(r.matches.map((m: Json) => m.path), ["real/x.txt"]);
    assert.equal(r.skipped.binary, 1);
  } finally {
    t.rm();
  }
});
