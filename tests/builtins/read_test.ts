import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { Buffer } from "node:buffer";
import { runBuiltin } from "../../lib/builtins/run.ts";
import { readLinePage } from "../../lib/builtins/line_page.ts";
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

const KIB = 1024;

async function read(root: string, args: Record<string, unknown>) {
  return await runBuiltin(decl("read"), args, env(folderView("app", root)));
}

Deno.test("seed example: ownership metadata through a child folder", async () => {
  const t = makeTree({ "app/rules/requirements.md": "# Req\n", "app/main.txt": "m\n" });
  try {
    const app = folderView("app", path.join(t.root, "app"));
    const spec = folderView("spec", path.join(t.root, "app/rules"));
    const e = env(app, { rules: { view: spec, admitted: true } });
    const r = await runBuiltin(decl("read"), { path: "rules/requirements.md" }, e);
    const d = ok(r);
    assert.equal(d.artifactId, "app");
    assert.equal(d.resolvedArtifactId, "spec");
    assert.equal(d.path, "rules/requirements.md");
    assert.deepEqual(d.lines, [{ line: 1, text: "# Req\n" }]);
    assert.equal(d.totalLines, 1);
    noPhysical(r, t.root);
    const own = ok(await runBuiltin(decl("read"), { path: "main.txt" }, e));
    assert.equal(own.resolvedArtifactId, "app");
    const refused = env(app, { rules: { view: spec, admitted: false } });
    assert.match(
      err(await runBuiltin(decl("read"), { path: "rules/requirements.md" }, refused)),
      /not admit/,
    );
  } finally {
    t.rm();
  }
});

Deno.test("LF, CRLF and a BOM are preserved; concatenation reproduces the source", async () => {
  const src = "\ufeffone\r\ntwo\n\nthree\r\nlast";
  const t = makeTree({ "f.txt": src });
  try {
    const d = ok(await read(t.root, { path: "f.txt" }));
    assert.deepEqual(d.lines.map((l: Json) => l.text), [
      "\ufeffone\r\n",
      "two\n",
      "\n",
      "three\r\n",
      "last",
    ]);
    assert.equal(d.lines.map((l: Json) => l.text).join(""), src);
    assert.equal(d.totalLines, 5);
    assert.equal(d.startLine, 1);
    assert.equal(d.truncated, false);
    assert.equal("nextLine" in d, false);
    const mid = ok(await read(t.root, { path: "f.txt", line: 2, limit: 2 }));
    assert.deepEqual(mid.lines, [{ line: 2, text: "two\n" }, { line: 3, text: "\n" }]);
    assert.equal(mid.truncated, true);
    assert.equal(mid.nextLine, 4);
  } finally {
    t.rm();
  }
});

Deno.test("empty file, page past EOF, limit boundaries", async () => {
  const t = makeTree({ "empty.txt": "", "three.txt": "a\nb\nc\n" });
  try {
    const e = ok(await read(t.root, { path: "empty.txt" }));
    assert.deepEqual([e.lines, e.totalLines, e.truncated], [[], 0, false]);
    const past = ok(await read(t.root, { path: "three.txt", line: 4 }));
    assert.deepEqual([past.lines, past.totalLines, past.truncated], [[], 3, false]);
    const far = ok(await read(t.root, { path: "three.txt", line: 1_000_000 }));
    assert.equal(far.totalLines, 3);
    const at = ok(await read(t.root, { path: "three.txt", line: 3 }));
    assert.deepEqual(at.lines, [{ line: 3, text: "c\n" }]);
    assert.equal(ok(await read(t.root, { path: "three.txt", limit: 3 })).truncated, false);
    const two = ok(await read(t.root, { path: "three.txt", limit: 2 }));
    assert.deepEqual([two.lines.length, two.truncated, two.nextLine], [2, true, 3]);
  } finally {
    t.rm();
  }
});

Deno.test("64 KiB of complete lines: first-line boundary and page cut", async () => {
  const at = "x".repeat(64 * KIB - 1) + "\n"; // exactly 64 KiB with its newline
  const t = makeTree({
    "at.txt": at + "next\n",
    "over.txt": "x".repeat(64 * KIB) + "\n",
    "over_nonl.txt": "y".repeat(64 * KIB + 1),
    "at_nonl.txt": "y".repeat(64 * KIB),
    "k.txt": ("z".repeat(KIB - 1) + "\n").repeat(100),
  });
  try {
    const a = ok(await read(t.root, { path: "at.txt" }));
    assert.deepEqual([a.lines.length, a.lines[0].text.length, a.truncated, a.nextLine], [
      1,
      64 * KIB,
      true,
      2,
    ]);
    assert.match(err(await read(t.root, { path: "over.txt" })), /line 1 is longer than 64 KiB/i);
    assert.match(err(await read(t.root, { path: "over_nonl.txt" })), /longer than 64 KiB/);
    assert.equal(ok(await read(t.root, { path: "at_nonl.txt" })).lines.length, 1);
    // 1 KiB lines: 64 fit exactly, the 65th starts the next page.
    const k = ok(await read(t.root, { path: "k.txt" }));
    assert.deepEqual([k.lines.length, k.truncated, k.nextLine, k.totalLines], [64, true, 65, 100]);
    const bytes = k.lines.reduce((n: number, l: Json) => n + Buffer.byteLength(l.text), 0);
    assert.equal(bytes, 64 * KIB);
    const k2 = ok(await read(t.root, { path: "k.txt", line: 65 }));
    assert.deepEqual([k2.lines.length, k2.truncated], [36, false]);
    // An oversized later line ends the page before it.
    fs.writeFileSync(path.join(t.root, "later.txt"), "ok\n" + "w".repeat(70 * KIB) + "\n");
    const l = ok(await read(t.root, { path: "later.txt" }));
    assert.deepEqual([l.lines.length, l.nextLine], [1, 2]);
    assert.match(err(await read(t.root, { path: "later.txt", line: 2 })), /line 2 is longer/i);
  } finally {
    t.rm();
  }
});

Deno.test("invalid UTF-8 or NUL is an error only in requested lines", async () => {
  const bad = Buffer.concat([
    Buffer.from("good\n"),
    Buffer.from([0xff, 0xfe, 0x0a]),
    Buffer.from("nul\0here\n"),
    Buffer.from([0xe2, 0x82, 0x0a]), // truncated sequence
    Buffer.from("tail\n"),
  ]);
  const t = makeTree({ "bad.txt": bad });
  try {
    const first = ok(await read(t.root, { path: "bad.txt", limit: 1 }));
    assert.deepEqual(first.lines, [{ line: 1, text: "good\n" }]);
    assert.equal(first.totalLines, 5);
    assert.match(err(await read(t.root, { path: "bad.txt" })), /Line 2 is not valid UTF-8/);
    assert.match(err(await read(t.root, { path: "bad.txt", line: 3 })), /Line 3 contains a NUL/);
    assert.match(
      err(await read(t.root, { path: "bad.txt", line: 4 })),
      /Line 4 is not valid UTF-8/,
    );
    assert.deepEqual(ok(await read(t.root, { path: "bad.txt", line: 5 })).lines, [
      { line: 5, text: "tail\n" },
    ]);
  } finally {
    t.rm();
  }
});

Deno.test("the JSON result stays under 512 KiB even for escape-heavy lines", async () => {
  const t = makeTree({
    "nl.txt": "\n".repeat(64 * KIB),
    "ctl.txt": ("\x01".repeat(63) + "\n").repeat(1024),
  });
  try {
    const nl = ok(await read(t.root, { path: "nl.txt", limit: 1_000_000 }));
    assert.ok(Buffer.byteLength(JSON.stringify(nl)) <= 512 * KIB);
    assert.ok(nl.lines.length < 64 * KIB); // cut by the JSON budget, not the 64 KiB of bytes
    assert.deepEqual([nl.truncated, nl.nextLine], [true, nl.lines.length + 1]);
    const ctl = ok(await read(t.root, { path: "ctl.txt", limit: 1_000_000 }));
    assert.ok(Buffer.byteLength(JSON.stringify(ctl)) <= 512 * KIB);
    assert.equal(ctl.lines.length, 1024);
  } finally {
    t.rm();
  }
});

Deno.test("fixed target, file Artifacts and errors", async () => {
  const t = makeTree({ "docs/notes.md": "n1\nn2\n", "docs/other.md": "o\n", "d/x": "x" });
  try {
    const fixed = ok(
      await runBuiltin(decl("read", ["docs/notes.md"]), {}, env(folderView("app", t.root))),
    );
    assert.equal(fixed.totalLines, 2);
    const fe = env(fileView("notes", path.join(t.root, "docs/notes.md")));
    const f = ok(await runBuiltin(decl("read"), { path: "notes.md" }, fe));
    assert.deepEqual([f.artifactId, f.resolvedArtifactId, f.path], ["notes", "notes", "notes.md"]);
    assert.match(err(await runBuiltin(decl("read"), { path: "other.md" }, fe)), /exposes only/);
    assert.match(err(await read(t.root, { path: "d" })), /folder, not a file/);
    assert.match(err(await read(t.root, { path: "missing.txt" })), /`missing.txt` does not exist/);
    assert.match(err(await read(t.root, { path: "." })), /not allowed/);
  } finally {
    t.rm();
  }
});

/** A buffer's lines, each with its `\n`; a final line without one counts. */
function splitAfterNewlines(buf: Buffer): Buffer[] {
  const lines: Buffer[] = [];
  let s = 0;
  for (let i = 0; i < buf.length; i++) {
    if (buf[i] === 10) {
      lines.push(buf.subarray(s, i + 1));
      s = i + 1;
    }
  }
  if (s < buf.length) lines.push(buf.subarray(s));
  return lines;
}

/** Reference implementation over the whole buffer. */
function reference(buf: Buffer, line: number, limit: number) {
  const lines = splitAfterNewlines(buf);
  const out: string[] = [];
  let bytes = 0;
  for (let i = line - 1; i < lines.length && out.length < limit; i++) {
    if (bytes + lines[i].length > 64 * KIB) break;
    bytes += lines[i].length;
    out.push(lines[i].toString("utf8"));
  }
  return { total: lines.length, texts: out };
}

Deno.test("streaming matches a whole-buffer reference across chunk boundaries", async () => {
  const t = makeTree({});
  let seed = 7;
  const rand = (n: number) => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) % n;
  try {
    for (let trial = 0; trial < 60; trial++) {
      const parts: string[] = [];
      const lines = rand(60);
      for (let i = 0; i < lines; i++) {
        parts.push("ab\u00e9c".repeat(rand(8)) + (rand(5) ? "\n" : "\r\n"));
      }
      const body = parts.join("") + (rand(2) ? "end" : "");
      const file = path.join(t.root, `f${trial}.txt`);
      fs.writeFileSync(file, body);
      const buf = Buffer.from(body);
      const fd = fs.openSync(file, "r");
      try {
        for (const chunk of [1, 3, 7, 64, 1 << 20]) {
          const line = 1 + rand(lines + 2);
          const limit = 1 + rand(10);
          const page = await readLinePage(fd, { line, limit, chunkBytes: chunk });
          assert.ok(page.ok);
          const ref = reference(buf, line, limit);
          assert.equal(page.totalLines, ref.total);
          assert.deepEqual(page.lines.map((l) => l.text), ref.texts);
        }
      } finally {
        fs.closeSync(fd);
      }
    }
  } finally {
    t.rm();
  }
});

Deno.test("a deep page of a large file streams with a small buffer", async () => {
  const t = makeTree({});
  try {
    const file = path.join(t.root, "big.txt");
    const line = (i: number) => `${i} ${"x".repeat(40)}\n`;
    const fd0 = fs.openSync(file, "w");
    for (let b = 0; b < 20; b++) {
      let s = "";
      for (let i = b * 10_000 + 1; i <= (b + 1) * 10_000; i++) s += line(i);
      fs.writeSync(fd0, s);
    }
    fs.closeSync(fd0);
    const fd = fs.openSync(file, "r");
    const page = await readLinePage(fd, { line: 150_000, limit: 3, chunkBytes: 4096 });
    fs.closeSync(fd);
    assert.ok(page.ok);
    assert.equal(page.totalLines, 200_000);
    assert.deepEqual(page.lines.map((l) => l.text), [line(150_000), line(150_001), line(150_002)]);
    assert.equal(page.nextLine, 150_003);
  } finally {
    t.rm();
  }
});

Deno.test("long scans yield to the event loop and honour cancellation", async () => {
  const t = makeTree({ "f.txt": "line\n".repeat(100_000) });
  const fd = fs.openSync(path.join(t.root, "f.txt"), "r");
  try {
    // 1 KiB chunks: the scan yields every 64 chunks; an explicit undefined signal is fine.
    const page = await readLinePage(fd, {
      line: 99_999,
      limit: 5,
      chunkBytes: 1024,
      signal: undefined,
    });
    assert.ok(page.ok);
    assert.deepEqual([page.totalLines, page.lines.length], [100_000, 2]);
    const ac = new AbortController();
    ac.abort();
    await assert.rejects(
      readLinePage(fd, { line: 1, limit: 1, chunkBytes: 1024, signal: ac.signal }),
      /cancelled/,
    );
  } finally {
    fs.closeSync(fd);
    t.rm();
  }
});

/** Line-by-line reference with every rule: byte budget, JSON budget, NUL, invalid UTF-8. */
function strictReference(
  buf: Buffer,
  line: number,
  limit: number,
  maxBytes: number,
  maxJson: number,
) {
  const dec = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
  const lines = splitAfterNewlines(buf);
  const texts: string[] = [];
  let bytes = 0;
  let json = 0;
  for (let i = line - 1; i < lines.length && texts.length < limit; i++) {
    if (bytes + lines[i].length > maxBytes) {
      if (texts.length === 0) return { error: `Line ${i + 1} is longer` };
      break;
    }
    if (lines[i].indexOf(0) !== -1) return { error: `Line ${i + 1} contains a NUL` };
    let text: string;
    try {
      text = dec.decode(lines[i]);
    } catch {
      return { error: `Line ${i + 1} is not valid UTF-8` };
    }
    const j = Buffer.byteLength(JSON.stringify(text)) + 24;
    if (json + j > maxJson) break;
    json += j;
    bytes += lines[i].length;
    texts.push(text);
  }
  return { total: lines.length, texts };
}

Deno.test("one-pass page decoding matches a line-by-line reference (bad bytes, budgets)", async () => {
  const t = makeTree({});
  let seed = 11;
  const rand = (n: number) => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) % n;
  const pieces = [
    Buffer.from("plain"),
    Buffer.from("\u00e9\u4e2d\u{1f600}"),
    Buffer.from('"\\\x01\t'),
    Buffer.from("\ufeff"),
    Buffer.from([0]),
    Buffer.from([0xff]),
    Buffer.from([0xe2, 0x82]),
    Buffer.from("\r"),
  ];
  try {
    for (let trial = 0; trial < 300; trial++) {
      const parts: Buffer[] = [];
      const lines = rand(30);
      for (let i = 0; i < lines; i++) {
        for (let k = rand(6); k > 0; k--) {
          // Bad bytes are rare so that many pages are valid and reach the budgets.
          const p = rand(40) === 0 ? 4 + rand(3) : [0, 1, 2, 3, 7][rand(5)];
          parts.push(pieces[p]);
        }
        parts.push(Buffer.from("\n"));
      }
      if (rand(2)) parts.push(Buffer.from("end"));
      const buf = Buffer.concat(parts);
      const file = path.join(t.root, `g${trial}.txt`);
      fs.writeFileSync(file, buf);
      const fd = fs.openSync(file, "r");
      try {
        const line = 1 + rand(lines + 2);
        const limit = 1 + rand(40);
        const maxBytes = 8 + rand(200);
        const maxJsonBytes = 30 + rand(600);
        const chunkBytes = [1, 5, 64, 1 << 20][rand(4)];
        // The size hint may be right, stale-small (the file grew) or stale-large (it shrank).
        const sizeHint = [undefined, buf.length, Math.floor(buf.length / 2), buf.length + 9][
          rand(4)
        ];
        const page = await readLinePage(fd, {
          line,
          limit,
          maxBytes,
          maxJsonBytes,
          chunkBytes,
          sizeHint,
        });
        const ref = strictReference(buf, line, limit, maxBytes, maxJsonBytes);
        const at = `trial ${trial}`;
        if ("error" in ref) {
          assert.ok(!page.ok, at);
          assert.ok(page.reason.startsWith(ref.error!), `${at}: ${page.reason}`);
          continue;
        }
        assert.ok(page.ok, at);
        assert.equal(page.totalLines, ref.total, at);
        assert.deepEqual(page.lines.map((l) => l.text), ref.texts, at);
        assert.deepEqual(page.lines.map((l) => l.line), ref.texts.map((_, i) => line + i), at);
      } finally {
        fs.closeSync(fd);
      }
    }
  } finally {
    t.rm();
  }
});
