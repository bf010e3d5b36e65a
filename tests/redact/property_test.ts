/**
 * Property tests: random texts with a protected value planted at every offset around every
 * cut, window, block boundary and chunk boundary, through the redaction primitives and
 * through every tool that cuts — no substring of the value of 4 or more characters may
 * remain in any form of what is handed out.
 */

import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { Redactor } from "../../lib/redact/redactor.ts";
import { redactResult } from "../../lib/redact/result.ts";
import { StreamingRedactor } from "../../lib/redact/stream.ts";
import { protectedHead, protectedTextHead } from "../../lib/redact/head.ts";
import type { ToolResult } from "../../lib/results/types.ts";
import { assertNoPart, assertTextHasNoPart, filler, open, VALUE } from "./_helpers.ts";

const KiB = 1024;
const L = VALUE.length;

/** A small deterministic PRNG (tests must not depend on luck). */
function rng(seed: number): (n: number) => number {
  let s = seed >>> 0;
  return (n) => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s % n;
  };
}

function redactor(): Redactor {
  const r = new Redactor();
  r.add(VALUE);
  return r;
}

/** A random text with the value planted at `at` (and maybe again later). */
function planted(len: number, at: number, seed: number): string {
  const base = filler(len, seed);
  return base.slice(0, at) + VALUE + base.slice(at);
}

Deno.test("property: every window of a text leaves no part of a value", () => {
  const red = redactor();
  const rand = rng(7);
  for (let i = 0; i < 300; i++) {
    const at = rand(200);
    const text = planted(240, at, i + 1);
    const start = Math.max(0, at - 10 + rand(L + 20));
    const end = Math.min(text.length, start + 1 + rand(60));
    assertTextHasNoPart([red.window(text, start, end)], VALUE, `text window ${start}-${end}`);
    const bytes = Buffer.from(text);
    const out = Buffer.from(red.bytes(bytes, start, end)).toString("latin1");
    assertTextHasNoPart([out], VALUE, `byte window ${start}-${end}`);
  }
});

Deno.test("property: a value at every offset across every block boundary", () => {
  const red = redactor();
  for (let at = 0; at < 40; at++) {
    const text = planted(60, at, at + 3);
    for (let cut = 1; cut < text.length; cut += 1) {
      for (const second of [text.length, Math.min(text.length, cut + 7)]) {
        const blocks = [text.slice(0, cut), text.slice(cut, second), text.slice(second)]
          .filter((t) => t !== "")
          .map((t) => ({ type: "text" as const, text: t }));
        const r = redactResult(red, { content: blocks, isError: false });
        assertNoPart(r, VALUE, `value at ${at}, blocks cut at ${cut}/${second}`);
      }
    }
  }
});

Deno.test("property: streamed in random pieces, the text is redacted as if whole", () => {
  const red = redactor();
  const rand = rng(11);
  for (let i = 0; i < 200; i++) {
    const text = planted(300, rand(250), i + 5) + VALUE.slice(0, rand(L)); // a tail prefix too
    const s = new StreamingRedactor(red);
    let out = "";
    for (let at = 0; at < text.length;) {
      const n = 1 + rand(40);
      out += s.push(text.slice(at, at + n));
      at += n;
    }
    out += s.end();
    assert.equal(out, red.text(text));
    assertTextHasNoPart([out.slice(0, out.length - L)], VALUE, `stream ${i}`);
  }
});

Deno.test("property: a stream head cut at every offset through a value", () => {
  const red = redactor();
  const text = planted(200, 100, 9);
  for (let keep = 0; keep <= text.length; keep++) {
    const head = text.slice(0, keep);
    const cut = keep < text.length;
    assertTextHasNoPart([protectedTextHead(red, head, cut)], VALUE, `text head ${keep}`);
    const bytes = protectedHead(red, Buffer.from(head), cut);
    assertTextHasNoPart([Buffer.from(bytes).toString("latin1")], VALUE, `byte head ${keep}`);
  }
});

Deno.test("property: every encoding toolhost produces is recognized", () => {
  const red = redactor();
  const rand = rng(3);
  for (let i = 0; i < 60; i++) {
    const pre = Buffer.from(filler(rand(7), i + 1));
    const bytes = Buffer.concat([pre, Buffer.from(VALUE), Buffer.from(filler(rand(5), i + 9))]);
    for (const enc of ["base64", "base64url", "hex"] as const) {
      const s = bytes.toString(enc);
      assert.ok(red.leaks(s), `${enc} at offset ${pre.length}`);
      assert.ok(red.leaks(s.toUpperCase()) || enc !== "hex", "upper-case hex");
    }
  }
  const odd = 'QZ"XK\\PW\r\nNB é\u0001RTVY-HJMLDSGCF';
  const r2 = new Redactor();
  r2.add(odd);
  for (
    const form of [
      JSON.stringify(odd),
      encodeURIComponent(odd),
      odd.replace(/\r\n/g, "\n"),
      odd.replaceAll("\r", "").replaceAll("\u0001", ""),
      JSON.stringify(odd).replace(/é/g, "\\u00e9"),
    ]
  ) assert.ok(r2.leaks(`x ${form} y`), form);
});

// ---- through the tools -------------------------------------------------------------

/** Results of `calls`, all checked. */
function checkAll(results: [string, ToolResult][]): void {
  for (const [what, r] of results) assertNoPart(r, VALUE, what);
}

Deno.test("property: files_read blocks and windows with a value at every offset", async () => {
  const files: Record<string, string> = {};
  for (let d = -L - 1; d <= 1; d++) {
    files[`b${d + L + 1}.txt`] = filler(64 * KiB + d, d + 100) + VALUE + filler(2000, 5);
  }
  const small = filler(200, 77) + VALUE + filler(200, 78);
  files["w.txt"] = small;
  files["n.bin"] = "\0" + small;
  const w = await open(files);
  try {
    const out: [string, ToolResult][] = [];
    for (let d = -L - 1; d <= 1; d++) {
      const path = `data/b${d + L + 1}.txt`;
      out.push([`block ${d}`, await w.reg.call("read_app", { path })]);
    }
    for (let start = 180; start < 240; start += 3) {
      for (const max of [4, 9, 20, 50]) {
        for (const path of ["data/w.txt", "data/n.bin"]) {
          const r = await w.reg.call("read_app", { path, offsetBytes: start, maxBytes: max });
          out.push([`${path} ${start}+${max}`, r]);
        }
      }
    }
    checkAll(out);
  } finally {
    await w.cleanup();
  }
});

Deno.test("property: files_search and grep lines with a value at every offset of the cut", async () => {
  const files: Record<string, string> = {};
  for (let d = 0; d <= L + 2; d++) {
    files[`s${d}.txt`] = `needle ${"a".repeat(493 - L + d)}${VALUE}tail\n`;
  }
  const w = await open(files);
  try {
    const r = await w.reg.call("search_app", { query: "needle" });
    const g = await w.reg.call("grep_app", { pattern: "needle" });
    assert.equal((r.content[0] as { data: { matches: unknown[] } }).data.matches.length, L + 3);
    checkAll([["files_search", r], ["grep", g]]);
  } finally {
    await w.cleanup();
  }
});

Deno.test("property: shell_exec, plain cap and spill preview cut at every offset", async () => {
  const files: Record<string, string> = {};
  const offsets: number[] = [];
  for (let d = -L - 1; d <= 1; d += 3) offsets.push(d);
  for (const d of offsets) {
    files[`sh${d}.txt`] = "a".repeat(32 * KiB + d) + VALUE + "b".repeat(50);
    files[`cap${d}.txt`] = "a".repeat(64 * KiB - 29 + d) + VALUE + "b".repeat(50);
    files[`pre${d}.txt`] = "a".repeat(8 * KiB + d) + VALUE + filler(70 * KiB, 4);
  }
  const w = await open(files);
  try {
    const out: [string, ToolResult][] = [];
    for (const d of offsets) {
      out.push([`shell ${d}`, await w.reg.call("shell_app", { command: `cat data/sh${d}.txt` })]);
      out.push([`cap ${d}`, await w.reg.call("cut_app", { file: `cap${d}.txt` })]);
      out.push([`preview ${d}`, await w.reg.call("spill_app", { file: `pre${d}.txt` })]);
    }
    checkAll(out);
  } finally {
    await w.cleanup();
  }
});

Deno.test("property: short and multi-line values in searched files keep later line numbers", async () => {
  for (const value of ["QZX-PWN", "-----BEGIN QZXK-----\nPWNBRTVYHJMLDSGCF\n-----END QZXK-----"]) {
    const lines = ["a needle", `b ${value} needle`, "c needle", value, "d needle"];
    const w = await open({ "f.txt": lines.join("\n") + "\n" }, value);
    try {
      for (const [tool, key] of [["search_app", "query"], ["grep_app", "pattern"]] as const) {
        const r = await w.reg.call(tool, { [key]: "needle" });
        assertNoPart(r, value, `${tool} ${JSON.stringify(value)}`);
        const got = (r.content[0] as { data: { matches: { line: number }[] } }).data.matches;
        const want = value.includes("\n") ? [1, 4, 5, 9] : [1, 2, 3, 5];
        assert.deepEqual(got.map((m) => m.line), want, tool);
      }
    } finally {
      await w.cleanup();
    }
  }
});
