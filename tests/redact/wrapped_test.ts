/**
 * Wrapped encodings: `base64` (coreutils) and MIME wrap at 76 columns, PEM and `openssl
 * base64` at 64, `xxd -p` at 60; a protected value's base64 or hex inside a longer stream
 * lands at any column, so a line break (LF or CRLF, maybe an indent as in a YAML block)
 * falls anywhere inside it. Each case handed the value's base64 or hex back split over
 * two lines while forms were only searched whole.
 */

import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import { Redactor } from "../../lib/redact/redactor.ts";
import { StreamingRedactor } from "../../lib/redact/stream.ts";
import { filler, open, spillContents, VALUE } from "./_helpers.ts";
import type { ToolResult } from "../../lib/results/types.ts";

const HAS_GIT = (() => {
  try {
    execFileSync("git", ["--version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
})();

function commitAll(app: string): void {
  const git = (...args: string[]) =>
    execFileSync("git", ["-c", "user.email=t@t", "-c", "user.name=t", ...args], {
      cwd: app,
      stdio: "pipe",
    });
  git("init", "-q", "-b", "main");
  git("add", ".");
  git("commit", "-qm", "init");
}

/** The base64 characters that depend on the value alone, at each alignment. */
function cores(value: string): string[] {
  const bytes = Buffer.from(value);
  return [0, 1, 2].map((pad) => {
    const all = Buffer.concat([Buffer.alloc(pad), bytes]);
    return all.toString("base64").slice(pad === 0 ? 0 : pad + 1, Math.floor(all.length / 3) * 4);
  });
}

/** Assert that no text holds 12 characters of the value's base64 or hex, breaks removed. */
function assertNoEncoded(texts: string[], what: string): void {
  const hex = Buffer.from(VALUE).toString("hex");
  const parts = [...cores(VALUE), hex, hex.toUpperCase()].flatMap((c) => {
    const out: string[] = [];
    for (let i = 0; i + 12 <= c.length; i++) out.push(c.slice(i, i + 12));
    return out;
  });
  for (const t of texts) {
    const flat = t.replace(/\s/g, "");
    for (const p of parts) assert.ok(!flat.includes(p), `${what}: "${p}" in ${JSON.stringify(t)}`);
  }
}

/** `s` with `eol` after every `width` characters (as `base64 -w width` writes it). */
function wrap(s: string, width: number, eol = "\n"): string {
  return s.replace(new RegExp(`[^]{${width}}`, "g"), `$&${eol}`);
}

/** Base64 of `pad` filler bytes, the value and more filler (the value at any column). */
function stream(pad: number): string {
  return Buffer.from(`${"#".repeat(pad)}${VALUE}${"~".repeat(40)}`).toString("base64");
}

Deno.test("a value's base64 in a wrapped stream is redacted wherever the breaks fall", () => {
  const r = new Redactor();
  r.add(VALUE);
  for (let pad = 40; pad < 46; pad++) { // every alignment, twice
    for (let width = 1; width <= 80; width++) {
      for (const eol of ["\n", "\r\n", "\n  ", "\r\n\t"]) {
        const out = r.text(wrap(stream(pad), width, eol));
        assertNoEncoded([out], `pad ${pad}, -w ${width}, ${JSON.stringify(eol)}`);
        assert.match(out, /\[protected\]/);
      }
    }
  }
});

Deno.test("a value's hex split over lines (xxd -p, od -An -tx1 -v without spaces) is redacted", () => {
  const r = new Redactor();
  r.add(VALUE);
  for (let pad = 0; pad < 4; pad++) {
    const bytes = Buffer.from(`${"#".repeat(pad)}${VALUE}${"~".repeat(20)}`);
    for (const hex of [bytes.toString("hex"), bytes.toString("hex").toUpperCase()]) {
      for (const width of [60, 32, 31, 7]) {
        const out = r.text(wrap(hex, width));
        assertNoEncoded([out], `hex pad ${pad}, width ${width}`);
      }
    }
  }
});

Deno.test("the value itself split by a line wrap (fold, a pretty-printer) is redacted", () => {
  const r = new Redactor();
  r.add(VALUE);
  for (let at = 1; at < VALUE.length; at++) {
    const out = r.text(`token: ${VALUE.slice(0, at)}\n       ${VALUE.slice(at)} end`);
    assert.equal(out, "token: [protected] end", `break after ${at}`);
  }
});

Deno.test("a wrapped stream redacted in pieces (spill files, the --stderr copy) never releases a part", () => {
  const r = new Redactor();
  r.add(VALUE);
  for (const pad of [40, 41, 42]) {
    for (const eol of ["\n", "\r\n"]) {
      const text = wrap(stream(pad), 76, eol);
      for (const size of [1, 3, 7, 64, 77]) {
        const s = new StreamingRedactor(r);
        let out = "";
        for (let i = 0; i < text.length; i += size) {
          out += s.push(text.slice(i, i + size));
          if (i % (size * 5) === 0) out += s.pause(); // a call ends mid-stream
        }
        out += s.end();
        assertNoEncoded([out], `pad ${pad}, pieces of ${size}`);
        assert.match(out, /\[protected\]/);
      }
    }
  }
});

Deno.test("a pause right after a break's CR holds the tail that may still become a value", () => {
  const r = new Redactor();
  r.add(VALUE);
  const [core] = cores(VALUE);
  const s = new StreamingRedactor(r);
  const first = s.push(`data: ${core.slice(0, 20)}\r`) + s.pause();
  assert.equal(first, "data: ");
  assert.equal(first + s.push(`\n${core.slice(20)} end`) + s.end(), "data: [protected] end");
});

Deno.test("bytes keep their line count when a split value is replaced in place", () => {
  const r = new Redactor();
  r.add(VALUE);
  const text = wrap(stream(41), 20, "\r\n");
  const lines = text.split("\n").length;
  const out = new TextDecoder().decode(r.bytes(new TextEncoder().encode(text), 0, undefined, true));
  assertNoEncoded([out], "bytes");
  assert.equal(out.split("\n").length, lines);
  assert.ok(r.leaksBytes(new TextEncoder().encode(text)));
  assert.ok(r.leaks(text));
});

Deno.test("ordinary text split over lines is left as it is", () => {
  const r = new Redactor();
  r.add(VALUE);
  const text = filler(4000) + "\nBase64: eHh4eHh4\neHh4eHh4\n";
  assert.equal(r.text(text), text);
});

/** Where in `text` the middle of the value's base64 is (found with the breaks removed). */
function inValue(text: string): number {
  const flat: number[] = []; // where each non-space character is
  for (let i = 0; i < text.length; i++) if (!/\s/.test(text[i])) flat.push(i);
  const joined = flat.map((i) => text[i]).join("");
  const at = cores(VALUE).map((c) => joined.indexOf(c.slice(8, 20))).find((i) => i >= 0);
  assert.ok(at !== undefined);
  return flat[at + 6];
}

/** Every text of a result (a files_read of a binary file comes back as base64). */
function texts(res: ToolResult): string[] {
  return [JSON.stringify(res), ...res.content.flatMap((b) => b.type === "text" ? [b.text] : [])];
}

Deno.test("a wrapped base64 file hands out no part of the value's base64 (read, lines, grep, search, plain, spill)", async () => {
  const pem = `-----BEGIN DATA-----\n${wrap(stream(41), 64)}\n-----END DATA-----\n`;
  const mime = wrap(stream(43), 76, "\r\n");
  const yaml = `data: |\n  ${wrap(stream(42), 76, "\n  ")}\n`;
  const big = filler(80_000) + "\n" + wrap(stream(44), 76) + "\n" + filler(80_000);
  const files = { "a.pem": pem, "m.eml": mime, "c.yaml": yaml, "big.txt": big };
  const w = await open(files);
  try {
    for (const f of Object.keys(files)) {
      const mid = inValue(files[f as keyof typeof files]);
      for (
        const [tool, args] of [
          ["read_app", { path: `data/${f}` }],
          ["read_app", { path: `data/${f}`, offsetBytes: mid - 20, maxBytes: 40 }], // a window cuts it
          ["lines_app", { path: `data/${f}` }],
          ["grep_app", { pattern: "[A-Za-z]", path: `data/${f}` }],
          ["search_app", { query: "e" }],
          ["cut_app", { file: f }],
          ["spill_app", { file: f }],
        ] as const
      ) {
        const res = await w.reg.call(tool, args);
        assert.equal(res.isError, false, `${tool} ${f}: ${JSON.stringify(res).slice(0, 300)}`);
        assertNoEncoded(texts(res), `${tool} ${f} ${JSON.stringify(args)}`);
      }
    }
    assertNoEncoded(spillContents(w.reg), "spill files");
  } finally {
    await w.cleanup();
  }
});

Deno.test({
  name: "git_diff: a hunk's edge through a wrapped value's base64 shows none of it",
  ignore: !HAS_GIT,
  fn: async () => {
    // Pads that put the value's base64 across a break, each alignment.
    const spans: Array<{ pad: number; lines: string[]; first: number; last: number }> = [];
    for (let pad = 300; spans.length < 4; pad++) {
      const lines = wrap(stream(pad), 76).split("\n");
      const flat = lines.join("");
      const core = cores(VALUE).find((c) => flat.includes(c))!;
      const start = flat.indexOf(core);
      const first = Math.floor(start / 76);
      const last = Math.floor((start + core.length - 1) / 76);
      if (last > first && start % 76 < 70) spans.push({ pad, lines, first, last });
    }
    for (const { pad, lines, first, last } of spans) {
      for (const contextLines of [1, 3]) {
        // A change that ends a hunk on the value's first line, one that starts it on its last.
        for (const changed of [first - contextLines, last + contextLines]) {
          const w = await open({ "v.b64": lines.join("\n") + "\n" });
          try {
            commitAll(w.app);
            const now = lines.map((l, i) => i === changed ? "CHANGED" : l);
            fs.writeFileSync(`${w.app}/data/v.b64`, now.join("\n") + "\n");
            const r = await w.reg.call("diff_app", { contextLines });
            assert.equal(r.isError, false, JSON.stringify(r));
            const what = `pad ${pad}, -U${contextLines}, line ${changed} of ${first}..${last}`;
            assertNoEncoded(texts(r), what);
          } finally {
            await w.cleanup();
          }
        }
      }
    }
  },
});
