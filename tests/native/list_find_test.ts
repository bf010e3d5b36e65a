import assert from "node:assert/strict";
import { NATIVE_LIMITS } from "../../lib/native/limits.ts";
import { runFilesFind } from "../../lib/native/find.ts";
import { admits, appTree, call, type Json, ok } from "./_helpers.ts";
import { folderView } from "./_helpers.ts";

function nested(levels: number): Record<string, string> {
  const parts = Array.from({ length: levels }, (_, i) => `d${i + 1}`);
  return { [`${parts.join("/")}/leaf.txt`]: "x" };
}

Deno.test("files_list: default depth 4 — a file at depth 4 is listed, at 5 it is not", async () => {
  assert.equal(NATIVE_LIMITS.listDefaultDepth, 4);
  const t = appTree({ ...nested(3), "e1/e2/e3/e4/deep.txt": "y" });
  try {
    const data: Json = ok(await call("files_list", {}, t.e));
    const paths = data.entries.map((e: Json) => e.path);
    assert.ok(paths.includes("d1/d2/d3/leaf.txt"), "depth 4 listed");
    assert.ok(paths.includes("e1/e2/e3/e4"), "the folder at depth 4 is listed");
    assert.ok(!paths.includes("e1/e2/e3/e4/deep.txt"), "depth 5 not listed");
    assert.match(data.warnings.join("\n"), /1 folders at depth 4 were not entered/);
    const five: Json = ok(await call("files_list", { depth: 5 }, t.e));
    assert.ok(five.entries.some((e: Json) => e.path === "e1/e2/e3/e4/deep.txt"));
    assert.deepEqual(five.warnings, []);
  } finally {
    t.rm();
  }
});

Deno.test("files_list: default 500 entries — 500 exactly, 499 and 501", async () => {
  assert.equal(NATIVE_LIMITS.listDefaultEntries, 500);
  for (const [n, truncated] of [[499, false], [500, false], [501, true]] as const) {
    const files: Record<string, string> = {};
    for (let i = 0; i < n; i++) files[`f${String(i).padStart(4, "0")}`] = "";
    const t = appTree(files);
    try {
      const data: Json = ok(await call("files_list", {}, t.e));
      assert.equal(data.entries.length, Math.min(n, 500), `n=${n}`);
      assert.equal(data.truncated, truncated, `n=${n}`);
      if (truncated) assert.match(data.warnings[0], /only the first 500 entries/);
    } finally {
      t.rm();
    }
  }
});

Deno.test("files_list / files_find: schema bounds on depth and counts", () => {
  for (const tool of ["files_list", "files_find"] as const) {
    const extra = tool === "files_find" ? { pattern: "*" } : {};
    const count = tool === "files_list" ? "maxEntries" : "maxResults";
    assert.ok(admits(tool, { ...extra, depth: NATIVE_LIMITS.maxDepth }));
    assert.ok(!admits(tool, { ...extra, depth: NATIVE_LIMITS.maxDepth + 1 }));
    assert.ok(!admits(tool, { ...extra, depth: 0 }));
    assert.ok(admits(tool, { ...extra, [count]: NATIVE_LIMITS.maxEntries }));
    assert.ok(!admits(tool, { ...extra, [count]: NATIVE_LIMITS.maxEntries + 1 }));
  }
});

Deno.test("files_list: symlinks are listed, never followed", async () => {
  const t = appTree({
    "real/a.txt": "a",
    "link": { symlink: "real" },
    "out": { symlink: "../state" },
  });
  try {
    const data: Json = ok(await call("files_list", {}, t.e));
    const paths = data.entries.map((e: Json) => `${e.path}:${e.kind}`);
    assert.deepEqual(paths, ["link:symlink", "out:symlink", "real:directory", "real/a.txt:file"]);
    assert.match(data.warnings.join("\n"), /2 symlinks were reported but not followed/);
  } finally {
    t.rm();
  }
});

Deno.test("files_find: default depth 8 — found at depth 8, not at 9", async () => {
  assert.equal(NATIVE_LIMITS.findDefaultDepth, 8);
  const t = appTree({ ...nested(7), "e1/e2/e3/e4/e5/e6/e7/e8/deep.txt": "y" });
  try {
    const data: Json = ok(await call("files_find", { pattern: "**/*.txt" }, t.e));
    const paths = data.matches.map((m: Json) => m.path);
    assert.deepEqual(paths, ["d1/d2/d3/d4/d5/d6/d7/leaf.txt"]);
    assert.match(data.warnings.join("\n"), /depth 8/);
    const nine: Json = ok(await call("files_find", { pattern: "**/*.txt", depth: 9 }, t.e));
    assert.equal(nine.matches.length, 2);
  } finally {
    t.rm();
  }
});

Deno.test("files_find: result limit at, below and above; bounded scan", async () => {
  const files: Record<string, string> = {};
  for (let i = 0; i < 10; i++) files[`f${i}.md`] = "";
  files["other.txt"] = "";
  const t = appTree(files);
  try {
    const at: Json = ok(await call("files_find", { pattern: "*.md", maxResults: 10 }, t.e));
    assert.deepEqual([at.matches.length, at.truncated], [10, false]);
    const below: Json = ok(await call("files_find", { pattern: "*.md", maxResults: 9 }, t.e));
    assert.deepEqual([below.matches.length, below.truncated], [9, true]);
    const scan: Json = ok(await runFilesFind({ pattern: "*.txt" }, t.e, 5));
    assert.deepEqual([scan.matches.length, scan.truncated], [0, true]);
    assert.match(scan.warnings.join("\n"), /scan stopped after 5 entries/);
    const full: Json = ok(await runFilesFind({ pattern: "*.txt" }, t.e, 11));
    assert.deepEqual([full.matches.length, full.truncated], [1, false]);
  } finally {
    t.rm();
  }
});

Deno.test("files_list / files_find skip descendants the eval does not admit", async () => {
  const t = appTree({ "pub/a.txt": "a", "priv/secret.txt": "s" });
  try {
    const e = {
      ...t.e,
      descendants: new Map([["priv", {
        view: folderView("priv", `${t.app}/priv`),
        admitted: false,
      }]]),
    };
    const list: Json = ok(await call("files_list", {}, e));
    assert.ok(!list.entries.some((x: Json) => x.path.startsWith("priv")));
    const find: Json = ok(await call("files_find", { pattern: "**/*.txt" }, e));
    assert.deepEqual(find.matches.map((m: Json) => m.path), ["pub/a.txt"]);
  } finally {
    t.rm();
  }
});
