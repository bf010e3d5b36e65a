/**
 * Adversarial examples, one per way toolhost's own processing could split a protected
 * value: block boundaries, read windows, base64, search line cuts, stream cuts, spill
 * previews and spill files. Each fails when redaction runs per block after the cut.
 */

import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import {
  assertNoPart,
  assertTextHasNoPart,
  filler,
  open,
  spillContents,
  VALUE,
} from "./_helpers.ts";

const KiB = 1024;
const json = (r: { content: unknown[] }) =>
  (r.content[0] as { data: Record<string, unknown> }).data;

Deno.test("files_read: a value across the 64 KiB block boundary is redacted in both blocks", async () => {
  const text = filler(64 * KiB - 10) + VALUE + filler(64 * KiB, 2);
  const w = await open({ "big.txt": text });
  try {
    const r = await w.reg.call("read_app", { path: "data/big.txt" });
    assert.equal(r.isError, false);
    assert.ok(r.content.length >= 3, "a json block and two text blocks");
    assertNoPart(r, VALUE, "block boundary");
    const joined = r.content.slice(1).map((b) => (b as { text: string }).text).join("");
    assert.ok(joined.includes("[protected]"));
  } finally {
    await w.cleanup();
  }
});

Deno.test("files_read: windows that start, end or lie inside a value return no part of it", async () => {
  const before = filler(300);
  const w = await open({ "w.txt": before + VALUE + filler(300, 3) });
  try {
    const at = Buffer.byteLength(before);
    const windows = [
      { offsetBytes: at + 5, maxBytes: 100 }, // starts inside
      { offsetBytes: at - 50, maxBytes: 60 }, // ends inside
      { offsetBytes: at + 3, maxBytes: 12 }, // inside
      { offsetBytes: at, maxBytes: VALUE.length - 1 }, // all but the last character
      { offsetBytes: 0, maxBytes: at + 4 }, // ends 4 characters in
    ];
    for (const win of windows) {
      const r = await w.reg.call("read_app", { path: "data/w.txt", ...win });
      assert.equal(r.isError, false, JSON.stringify(r));
      assertNoPart(r, VALUE, `window ${JSON.stringify(win)}`);
      assert.equal(json(r).offset, win.offsetBytes, "offsets stay in file bytes");
    }
  } finally {
    await w.cleanup();
  }
});

Deno.test("files_read: a file with a NUL byte comes back base64 without the value", async () => {
  const w = await open({ "bin.dat": `\0head ${VALUE} tail\0` });
  try {
    const r = await w.reg.call("read_app", { path: "data/bin.dat" });
    assert.equal(json(r).encoding, "base64");
    assertNoPart(r, VALUE, "base64 read");
    const cut = await w.reg.call("read_app", { path: "data/bin.dat", offsetBytes: 9, maxBytes: 9 });
    assertNoPart(cut, VALUE, "base64 window");
  } finally {
    await w.cleanup();
  }
});

Deno.test("files_search: a line cut at 500 units never ends in a value's first part", async () => {
  const line = "needle " + "a".repeat(487) + VALUE + "\n"; // the cut keeps 6 characters
  const w = await open({ "long.txt": line });
  try {
    const r = await w.reg.call("search_app", { query: "needle" });
    const m = (json(r).matches as { text: string }[])[0];
    assert.ok(m.text.length <= 500);
    assertNoPart(r, VALUE, "search line cut");
  } finally {
    await w.cleanup();
  }
});

Deno.test("files_search and grep: a guess at a value's next character is no oracle", async () => {
  const w = await open({ "cfg.env": `user=me\ntoken=${VALUE}\n` });
  try {
    const right = VALUE.slice(0, 6);
    const wrong = VALUE.slice(0, 5) + (VALUE[5] === "A" ? "B" : "A");
    for (const [tool, key] of [["search_app", "query"], ["grep_app", "pattern"]] as const) {
      const answers = [];
      for (const guess of [`token=${right}`, `token=${wrong}`, right, wrong, `=${right[0]}`]) {
        const r = await w.reg.call(tool, { [key]: guess });
        answers.push(JSON.stringify(json(r).matches));
      }
      assert.deepEqual(answers, Array(5).fill("[]"), `${tool}: ${answers.join(" | ")}`);
      // The rest of the line is still found, redacted.
      const r = await w.reg.call(tool, { [key]: "token=" });
      assert.match(JSON.stringify(json(r).matches), /token=\[protected\]/);
    }
  } finally {
    await w.cleanup();
  }
});

Deno.test("glob, files_find and search filters never match a name holding a value", async () => {
  const w = await open({ [`key-${VALUE}.txt`]: "x\n", "other.txt": "x\n" });
  try {
    for (const pattern of [`**/key-${VALUE.slice(0, 4)}*`, `**/key-${VALUE.slice(0, 3)}X*`]) {
      const g = await w.reg.call("glob_app", { pattern });
      const f = await w.reg.call("find_app", { pattern });
      assert.doesNotMatch(JSON.stringify([g, f]), /key-/, pattern);
    }
    const counts = [];
    for (const glob of [`key-${VALUE.slice(0, 4)}*`, "key-AAAA*"]) {
      const r = await w.reg.call("search_app", { query: "x", glob });
      counts.push(json(r).filesScanned);
    }
    assert.deepEqual(counts, [0, 0]);
  } finally {
    await w.cleanup();
  }
});

Deno.test("shell_exec: the 32 KiB stream cut never ends in a value's first part", async () => {
  const w = await open({ "s.txt": "a".repeat(32 * KiB - 7) + VALUE + "b".repeat(100) });
  try {
    const r = await w.reg.call("shell_app", { command: "cat data/s.txt; cat data/s.txt >&2" });
    const d = json(r) as { stdout: { truncated: boolean } };
    assert.equal(d.stdout.truncated, true);
    assertNoPart(r, VALUE, "shell cut");
  } finally {
    await w.cleanup();
  }
});

Deno.test("plain output: the 64 KiB cap never ends in a value's first part", async () => {
  const w = await open({ "p.txt": "a".repeat(64 * KiB - 40) + VALUE + "b".repeat(1000) });
  try {
    const r = await w.reg.call("cut_app", { file: "p.txt" });
    assert.match((r.content[0] as { text: string }).text, /\[output truncated at 64 KiB\]$/);
    assertNoPart(r, VALUE, "plain cap");
  } finally {
    await w.cleanup();
  }
});

Deno.test("spill: the 8 KiB preview and the spilled file never hold a value or part of one", async () => {
  const w = await open({
    "big.txt": "a".repeat(8 * KiB - 6) + VALUE + "\n" + filler(80 * KiB) + VALUE + "\n",
  });
  try {
    const r = await w.reg.call("spill_app", { file: "big.txt" });
    const t = (r.content[0] as { text: string }).text;
    assert.match(t, /\[artifact\] id="spill_app-output-/);
    assertNoPart(r, VALUE, "spill preview");
    const files = spillContents(w.reg);
    assert.equal(files.length, 1);
    assertTextHasNoPart(files, VALUE, "spill file");
    assert.equal(files[0].split("[protected]").length, 3, "both occurrences redacted in the file");
    const id = /\[artifact\] id="([^"]+)"/.exec(t)![1];
    const page = await w.reg.call("get_artifact_field", {
      artifact_ref: id,
      field: "content",
      offset: 8 * KiB - 10,
      max_chars: 20,
    });
    assert.equal(page.isError, false, "a redacted spill file can be paged");
    assertNoPart(page, VALUE, "artifact page");
    const found = await w.reg.call("search_artifact_content", { query: VALUE.slice(0, 6) });
    assert.deepEqual(json(found).matches, []);
  } finally {
    await w.cleanup();
  }
});

const PEM = "-----BEGIN QZXK-----\nPWNBRTVYHJMLDSGCF\nXQWEMNBVCXZLKJH\n-----END QZXK-----";

Deno.test("read built-in: a page that starts or ends inside a multi-line value shows none of it", async () => {
  const doc = "one\ntwo\n" + PEM + "\nthree\nfour\n";
  const w = await open({ "k.pem": doc }, PEM);
  try {
    for (const [line, limit] of [[1, 3], [1, 4], [3, 1], [4, 2], [5, 3], [2, 3], [1, 99]]) {
      const r = await w.reg.call("lines_app", { path: "data/k.pem", line, limit });
      assert.equal(r.isError, false, JSON.stringify(r));
      assertNoPart(r, PEM, `lines ${line}+${limit}`);
    }
  } finally {
    await w.cleanup();
  }
});

Deno.test("section built-in: the 64 KiB cap never keeps a multi-line value's first lines", async () => {
  const doc = `# Keys\n${"a".repeat(64 * KiB - 80)}\n${PEM}\n${"b".repeat(100)}\n`;
  const w = await open({ "doc.md": doc }, PEM);
  try {
    const r = await w.reg.call("sec_app", {});
    assert.equal(r.isError, false, JSON.stringify(r).slice(0, 200));
    assertNoPart(r, PEM, "section cap");
  } finally {
    await w.cleanup();
  }
});

Deno.test("listings and searches order a name holding a value as it is shown", async () => {
  const shown = [];
  for (const value of ["BQZX-PWNBRTVY-HJMLDSGCF", "YQZX-PWNBRTVY-HJMLDSGCF"]) {
    const files = { "key-M.txt": "x\n", [`key-${value}.txt`]: "x\n", "key-N.txt": "x\n" };
    const w = await open(files, value);
    try {
      const out = [];
      for (
        const [tool, args] of [
          ["ls_app", { path: "data" }],
          ["files_app", { path: "data" }],
          ["grep_app", { pattern: "x" }],
          ["search_app", { query: "x" }],
        ] as const
      ) {
        const r = await w.reg.call(tool, args);
        assertNoPart(r, value, tool);
        out.push(`${tool}: ${JSON.stringify(r).match(/key-[^"/]*/g)?.join(" ")}`);
      }
      shown.push(out);
    } finally {
      await w.cleanup();
    }
  }
  assert.deepEqual(shown[0], shown[1], "the same answers whatever the value's first letter");
});

Deno.test("files_edit and files_patch: whether an edit applies never tells a guess right", async () => {
  const w = await open({ "cfg.env": `user=me\ntoken=${VALUE}\nend=1\n` });
  try {
    const right = `token=${VALUE.slice(0, 6)}`;
    const wrong = `token=${VALUE.slice(0, 5)}${VALUE[5] === "A" ? "B" : "A"}`;
    const edits = [];
    for (const oldText of [right, wrong, `token=${VALUE}`, `=${VALUE[0]}`, "=X"]) {
      const r = await w.reg.call("edit_app", { path: "data/cfg.env", oldText, newText: "t=1" });
      edits.push(r.isError ? (r.content[0] as { text: string }).text : "applied");
    }
    assert.equal(new Set(edits).size, 1, edits.join(" | "));
    const patch = (line: string) =>
      `--- a/data/cfg.env\n+++ b/data/cfg.env\n@@ -1,2 +1,2 @@\n user=me\n-${line}\n+token=new\n`;
    const patches = [];
    for (const line of [`token=${VALUE}`, `token=${VALUE.slice(0, -1)}A`]) {
      const r = await w.reg.call("patch_app", { patch: patch(line) });
      patches.push(JSON.stringify(r));
    }
    assert.equal(patches[0], patches[1]);
    assert.match(patches[0], /does not apply/);
    const ok = await w.reg.call("edit_app", {
      path: "data/cfg.env",
      oldText: "end=1",
      newText: "e",
    });
    assert.equal(ok.isError, false, "edits away from the value still apply");
    assert.ok(Deno.readTextFileSync(`${w.app}/data/cfg.env`).includes(VALUE), "value kept");
  } finally {
    await w.cleanup();
  }
});
