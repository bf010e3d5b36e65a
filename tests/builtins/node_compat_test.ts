import assert from "node:assert/strict";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { makeTree } from "./helpers.ts";

async function run(cmd: string, args: string[]): Promise<Deno.CommandOutput | null> {
  try {
    return await new Deno.Command(cmd, { args, stdout: "piped", stderr: "piped" }).output();
  } catch {
    return null;
  }
}

Deno.test("the same built-ins run under Node (fd flags, /proc pinning, SIMD)", async () => {
  const t = makeTree({
    "a.txt": "one\nneedle 1\n",
    "sub/b.txt": "NEEDLE 2\n",
    "link": { symlink: "a.txt" },
  });
  const bundle = path.join(t.root, "..", `${path.basename(t.root)}-smoke.mjs`);
  try {
    const version = await run("node", ["--version"]);
    if (version === null || version.code !== 0) return; // Node not installed
    new Deno.Command("mkfifo", { args: [path.join(t.root, "pipe")] }).outputSync();
    const entry = fileURLToPath(new URL("../fixtures/builtins/node_smoke.ts", import.meta.url));
    const b = await run(Deno.execPath(), [
      "bundle",
      "--quiet",
      "--platform",
      "node",
      "-o",
      bundle,
      entry,
    ]);
    assert.equal(b?.code, 0, new TextDecoder().decode(b?.stderr));
    const r = await run("node", [bundle, t.root]);
    assert.equal(r?.code, 0, new TextDecoder().decode(r?.stderr));
    const out = JSON.parse(new TextDecoder().decode(r?.stdout));
    assert.equal(out.simd, true);
    assert.deepEqual(out.read.data.lines, [{ line: 2, text: "needle 1\n" }]);
    assert.match(out.readLink.error, /symlink/);
    assert.match(out.readFifo.error, /special file/);
    assert.deepEqual(
      out.list.data.entries.map((e: { kind: string }) => e.kind),
      ["file", "symlink", "other", "directory"],
    );
    assert.deepEqual(out.glob.data.files, ["a.txt", "sub/b.txt"]);
    assert.deepEqual(out.grep.data.matches.map((m: { path: string }) => m.path), [
      "a.txt",
      "sub/b.txt",
    ]);
    assert.deepEqual(out.grepRegex.data.matches, [{ path: "a.txt", line: 2, text: "needle 1" }]);
  } finally {
    t.rm();
    try {
      Deno.removeSync(bundle);
    } catch { /* not created */ }
  }
});
