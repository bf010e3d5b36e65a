/**
 * Long grep and glob calls give the event loop turns, so an AbortSignal stops them
 * promptly: inside one large file, between many small files, and during a walk (see
 * also walk_async_test.ts).
 */

import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { Buffer } from "node:buffer";
import { runBuiltin } from "../../lib/builtins/run.ts";
import { runGlob } from "../../lib/builtins/glob.ts";
import { CancelledError } from "../../lib/paths/walk.ts";
import { decl, env, err, folderView, makeTree, ok } from "./helpers.ts";

/** No literal, outside the V8 prefilter's subset: re2js tests windows and lines. */
const SLOW = "(?:a|b){80}[^ab]";

function abLines(bytes: number): Buffer {
  let line = "";
  for (let i = 0; i < 99; i++) line += (i * 7) % 3 === 0 ? "a" : "b";
  return Buffer.alloc(bytes, `${line}\n`);
}

/** Run a built-in while counting event-loop turns; abort after `abortMs` (if given). */
async function timed(
  root: string,
  builtin: "grep" | "glob",
  args: Record<string, unknown>,
  abortMs?: number,
) {
  const ac = new AbortController();
  let turns = 0;
  const tick = setInterval(() => turns++, 1);
  let abortedAt = 0;
  const timer = abortMs === undefined ? undefined : setTimeout(() => {
    abortedAt = performance.now();
    ac.abort();
  }, abortMs);
  try {
    const r = await runBuiltin(
      decl(builtin),
      args,
      env(folderView("app", root), {}, undefined, ac.signal),
    );
    return { r, turns, afterAbort: abortedAt === 0 ? -1 : performance.now() - abortedAt };
  } finally {
    clearInterval(tick);
    clearTimeout(timer);
  }
}

Deno.test("a long search inside one large file lets the event loop run", async () => {
  const t = makeTree({ "big.txt": abLines(8 * 1024 * 1024) });
  try {
    const { r, turns } = await timed(t.root, "grep", { pattern: SLOW, path: "big.txt" });
    assert.deepEqual(ok(r).matches, []);
    assert.ok(turns >= 2, `event loop turns: ${turns}`);
  } finally {
    t.rm();
  }
});

Deno.test("an abort stops a search inside one large file promptly", async () => {
  const t = makeTree({ "big.txt": abLines(8 * 1024 * 1024) });
  try {
    const { r, afterAbort } = await timed(t.root, "grep", { pattern: SLOW, path: "big.txt" }, 5);
    assert.match(err(r), /cancelled/);
    assert.ok(afterAbort >= 0 && afterAbort < 1000, `returned ${afterAbort} ms after the abort`);
  } finally {
    t.rm();
  }
});

Deno.test("an abort stops a search between many small files promptly", async () => {
  const t = makeTree({});
  try {
    const small = abLines(32 * 1024); // below one search stride: no pause inside a file
    for (let i = 0; i < 400; i++) fs.writeFileSync(path.join(t.root, `f${i}.txt`), small);
    const { r, afterAbort } = await timed(t.root, "grep", { pattern: SLOW }, 5);
    assert.match(err(r), /cancelled/);
    assert.ok(afterAbort >= 0 && afterAbort < 1000, `returned ${afterAbort} ms after the abort`);
  } finally {
    t.rm();
  }
});

Deno.test("glob honours an aborted signal even in a small tree", async () => {
  const t = makeTree({ "a.txt": "a", "d/b.txt": "b" });
  try {
    const ac = new AbortController();
    ac.abort();
    await assert.rejects(
      runGlob({ pattern: "**" }, env(folderView("app", t.root), {}, undefined, ac.signal)),
      CancelledError,
    );
  } finally {
    t.rm();
  }
});
