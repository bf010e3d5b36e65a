/**
 * The Node single-executable build (`deno task build:sea`) end to end: built (or reused
 * when its bundle is unchanged), copied alone into a temporary folder, and run with a PATH
 * that holds neither deno nor node over the CLI surface (see _suite.ts).
 *
 * @module
 */

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { buildSea, findNode, ROOT } from "../../scripts/build_sea.ts";
import { registerDistSuite, type Runner } from "./_suite.ts";
import { type DistWorkspace, distWorkspace, placeBinary } from "./_workspace.ts";

async function prepare(): Promise<Runner | { skip: string }> {
  try {
    findNode();
  } catch (e) {
    // Only a machine without a SEA-capable node (>= 20) skips; CI has Node 20.
    return { skip: `no node to build the SEA with (${(e as Error).message.split("\n")[0]})` };
  }
  const { binary } = await buildSea(); // a broken build fails the file, it does not skip
  return { program: binary, prefix: [] };
}

const built = await prepare();

Deno.test("build:sea writes its CLI bundle ASCII-only (V8 then keeps it one byte per character)", () => {
  if ("skip" in built) return; // the suite below prints why
  const bundle = readFileSync(join(ROOT, "dist", "sea", "toolhost.cjs"), "latin1");
  const wide = bundle.search(/[\u0080-\u00ff]/); // read as Latin-1: one char per byte
  assert.equal(wide, -1, `a byte above 0x7f at offset ${wide}`);
});
registerDistSuite("SEA binary", built, async (ws) => {
  const copy = join(ws.bin, "toolhost");
  await placeBinary((built as Runner).program, copy);
  return { program: copy, prefix: [] };
});

/** Run `bin tools call nap_app` under a pseudo-terminal (util-linux `script`). */
async function inTerminal(bin: string, ws: DistWorkspace, env: Record<string, string>) {
  const out = join(ws.dir, "nap.json");
  const cmd = `'${bin}' tools call nap_app --eval app/review > '${out}'`;
  const res = await new Deno.Command("script", {
    args: ["-qec", cmd, "/dev/null"],
    cwd: ws.root,
    clearEnv: true,
    env: { PATH: ws.path, HOME: join(ws.dir, "home"), TERM: "xterm", ...env },
    stdin: "null",
  }).output();
  return {
    code: res.code,
    terminal: new TextDecoder().decode(res.stdout),
    stdout: Deno.readTextFileSync(out),
  };
}

const hasScript = new Deno.Command("sh", { args: ["-c", "command -v script"] }).outputSync()
  .success;
if (!hasScript) console.log("SKIP SEA terminal progress test: util-linux `script` is missing");

Deno.test({
  name: "SEA binary on a terminal: progress line (erased), red errors; NO_COLOR: no escapes",
  ignore: "skip" in built || !hasScript,
  fn: async () => {
    await using ws = await distWorkspace();
    const bin = join(ws.bin, "toolhost");
    await placeBinary((built as Runner).program, bin);
    const color = await inTerminal(bin, ws, {});
    assert.equal(color.code, 0, color.terminal);
    assert.equal(JSON.parse(color.stdout).isError, false, "stdout carries only the result");
    assert.ok(color.terminal.includes("\x1b[22m running the tool…"), "a dim spinner");
    assert.match(color.terminal, /\r +\r/, "the line is erased at the end");
    const typo = await new Deno.Command("script", {
      args: ["-qec", `'${bin}' tols`, "/dev/null"],
      clearEnv: true,
      env: { PATH: ws.path, TERM: "xterm" },
    }).output();
    const typoText = new TextDecoder().decode(typo.stdout);
    assert.ok(typoText.includes("\x1b[31merror: unknown command 'tols'"), "red on a terminal");
    const plain = await inTerminal(bin, ws, { NO_COLOR: "1" });
    assert.match(plain.terminal, /running the tool…/);
    assert.ok(!plain.terminal.includes("\x1b"), "NO_COLOR: no escape codes");
  },
});
