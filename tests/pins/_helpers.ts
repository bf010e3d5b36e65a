/**
 * Helpers shared by the pin tests: temp workspaces and assertions on failures.
 *
 * @module
 */

import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { createHash } from "node:crypto";
import { lstatSync, readdirSync, readFileSync, readlinkSync, realpathSync } from "node:fs";
import { PreparationFailed } from "../../lib/errors/errors.ts";

/**
 * Run `fn` with a fresh temp workspace, removed afterwards.
 *
 * @example
 * ```ts
 * await withWorkspace(async (root) => console.log(root));
 * ```
 */
export async function withWorkspace(fn: (root: string) => Promise<void>): Promise<void> {
  const root = await Deno.makeTempDir({ prefix: "toolhost_pins_" });
  try {
    await fn(root);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
}

/**
 * Write `files` (relative path → contents) under `root`, creating parent directories.
 *
 * @example
 * ```ts
 * writeTree("/tmp/x", { "a/b.txt": "hi" });
 * ```
 */
export function writeTree(root: string, files: Record<string, string>): void {
  for (const [rel, text] of Object.entries(files)) {
    const abs = `${root}/${rel}`;
    Deno.mkdirSync(abs.slice(0, abs.lastIndexOf("/")), { recursive: true });
    Deno.writeTextFileSync(abs, text);
  }
}

/**
 * Create a FIFO with `mkfifo`.
 *
 * @example
 * ```ts
 * await mkfifo("/tmp/x/pipe");
 * ```
 */
export async function mkfifo(abs: string): Promise<void> {
  const out = await new Deno.Command("mkfifo", { args: [abs] }).output();
  assert.equal(out.code, 0, "mkfifo failed");
}

/**
 * Assert that `p` rejects with `PreparationFailed` whose message names `declared` and
 * matches `reason`, and does not leak the physical root or `secrets`.
 *
 * @example
 * ```ts
 * await rejectsPin(pinPath(root, "x"), { root, declared: "x", reason: /missing/ });
 * ```
 */
export async function rejectsPin(
  p: Promise<unknown>,
  want: { root: string; declared?: string; reason: RegExp; secrets?: string[] },
): Promise<PreparationFailed> {
  let caught: unknown;
  try {
    await p;
  } catch (e) {
    caught = e;
  }
  assert.ok(caught instanceof PreparationFailed, `expected PreparationFailed, got ${caught}`);
  assert.equal(caught.code, "PREPARATION_FAILED");
  if (want.declared !== undefined) {
    assert.ok(
      caught.message.includes(JSON.stringify(want.declared)),
      `message should name ${want.declared}: ${caught.message}`,
    );
  }
  assert.match(caught.message, want.reason);
  assert.ok(!caught.message.includes(want.root), "message must not contain the physical root");
  for (const s of want.secrets ?? []) assert.ok(!caught.message.includes(s), "leaked contents");
  return caught;
}

/**
 * Descriptors of this process open on something under `root`. Only those: `deno test
 * --parallel` runs other test files in this same process, and their descriptors come and go.
 */
export function openFds(root: string): number {
  const under = `${realpathSync(root)}/`;
  let n = 0;
  for (const name of readdirSync("/proc/self/fd")) {
    try {
      if (`${readlinkSync(`/proc/self/fd/${name}`)}/`.startsWith(under)) n++;
    } catch { /* closed meanwhile */ }
  }
  return n;
}

/**
 * The seed's directory digest, computed the slow obvious way (lstat, Buffer sort).
 *
 * @example
 * ```ts
 * referenceDigest("/tmp/x/t");
 * ```
 */
export function referenceDigest(dir: string): string {
  const lines: { key: Buffer; tail: string }[] = [];
  const walk = (abs: string, rel: string) => {
    for (const name of readdirSync(abs)) {
      const childAbs = `${abs}/${name}`;
      const childRel = rel === "" ? name : `${rel}/${name}`;
      const st = lstatSync(childAbs);
      const sha = (b: Uint8Array) => createHash("sha256").update(b).digest("hex");
      if (st.isDirectory()) walk(childAbs, childRel);
      else if (st.isSymbolicLink()) {
        lines.push({
          key: Buffer.from(childRel),
          tail: `\0l\0${sha(readlinkSync(childAbs, { encoding: "buffer" }))}\n`,
        });
      } else {lines.push({
          key: Buffer.from(childRel),
          tail: `\0f\0${sha(readFileSync(childAbs))}\n`,
        });}
    }
  };
  walk(dir, "");
  lines.sort((a, b) => Buffer.compare(a.key, b.key));
  const h = createHash("sha256");
  for (const l of lines) h.update(l.key).update(l.tail);
  return h.digest("hex");
}

/**
 * Write `t/`, a tree with every shape the format has to order and cover, under `root`.
 *
 * @example
 * ```ts
 * fixtureTree("/tmp/x");
 * ```
 */
export function fixtureTree(root: string): void {
  const big = "0123456789abcdef".repeat(20_000); // 320,000 bytes: the large-file path
  writeTree(root, {
    "t/a.txt": "abc",
    "t/b-x": "x",
    "t/b/c.txt": "",
    "t/b/sub/é.txt": "café",
    "t/b/sub/deeper/still/leaf": "leaf\n",
    "t/\u{1F600}smile": "astral", // a surrogate pair in UTF-16 ...
    "t/\uFF21wide": "bmp above the surrogates", // ... sorts before this in UTF-16, after in UTF-8
    "t/big.bin": big,
    "t/mode/exec": "#!/bin/sh\n",
  });
  Deno.chmodSync(`${root}/t/mode/exec`, 0o755); // modes are not part of the format
  Deno.symlinkSync("../a.txt", `${root}/t/b/link`);
  Deno.symlinkSync("nowhere/at/all", `${root}/t/dangling`);
  Deno.mkdirSync(`${root}/t/b/empty/deeper`, { recursive: true });
  Deno.mkdirSync(`${root}/t/z-empty`);
}
