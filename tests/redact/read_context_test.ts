/**
 * The `read` built-in reads the lines around a page to find a protected value the page's
 * edge cuts (a wrapped base64 form may span dozens of lines). Those neighbours were read
 * with no byte bound: a page next to a few long lines made one call hold them all in
 * memory (a workspace file is untrusted). Now they are read within MAX_CONTEXT_BYTES, and
 * a page whose neighbours do not fit is refused whole — never handed out without them.
 */

import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { MAX_CONTEXT_BYTES } from "../../lib/builtins/read.ts";
import { open, VALUE } from "./_helpers.ts";

const LONG = "x".repeat(200 * 1024) + "\n";

Deno.test("read: a page whose neighbours are too long to check is refused, not handed out in part", async () => {
  const lines: string[] = [];
  for (let i = 1; i <= 300; i++) lines.push(i >= 170 && i < 200 ? LONG : `line ${i}\n`);
  const text = lines.join("");
  assert.ok(Buffer.byteLength(text) > MAX_CONTEXT_BYTES);
  const w = await open({ "long.txt": text });
  try {
    const r = await w.reg.call("lines_app", { path: "data/long.txt", line: 200, limit: 5 });
    assert.equal(r.isError, true, JSON.stringify(r).slice(0, 300));
    const message = JSON.stringify(r.content);
    assert.match(message, /too long to check for protected values/);
    assert.doesNotMatch(message, /line 20[0-4]/);
    // Far from the long lines, the same file reads as before.
    const far = await w.reg.call("lines_app", { path: "data/long.txt", line: 290, limit: 5 });
    assert.equal(far.isError, false, JSON.stringify(far).slice(0, 300));
  } finally {
    await w.cleanup();
  }
});

Deno.test("read: a wrapped value cut by the page's first line is still found through its neighbours", async () => {
  const b64 = Buffer.from(`prefix ${VALUE} suffix`).toString("base64");
  const wrapped = b64.match(/.{1,8}/g)!.join("\n") + "\n";
  const w = await open({ "w.txt": "head\n" + wrapped + "tail\n" });
  try {
    // Start the page in the middle of the wrapped form.
    const r = await w.reg.call("lines_app", { path: "data/w.txt", line: 4, limit: 3 });
    assert.equal(r.isError, false, JSON.stringify(r).slice(0, 300));
    // Its part of the form is replaced (the marker), not handed out as it is.
    assert.match(JSON.stringify(r.content), /\[protected\]/);
  } finally {
    await w.cleanup();
  }
});
