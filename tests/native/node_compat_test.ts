import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { makeTree } from "./_helpers.ts";

async function run(cmd: string, args: string[]): Promise<Deno.CommandOutput | null> {
  try {
    return await new Deno.Command(cmd, { args, stdout: "piped", stderr: "piped" }).output();
  } catch {
    return null;
  }
}

Deno.test("the native tools and the plugin host run under Node from the same source", async () => {
  const t = makeTree({ "link": { symlink: "/tmp" } });
  const bundle = path.join(t.root, "..", `${path.basename(t.root)}-native-smoke.mjs`);
  try {
    const version = await run("node", ["--version"]);
    if (version === null || version.code !== 0) return; // Node not installed
    const entry = fileURLToPath(new URL("./fixtures/node_smoke.ts", import.meta.url));
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
    assert.equal(out.write.isError, false);
    assert.equal(out.patch.isError, false);
    assert.equal(fs.readFileSync(path.join(t.root, "d/a.txt"), "utf8"), "one\nTWO\n");
    assert.match(out.escape.content[0].text, /symlink/);
    assert.deepEqual(out.search.content[0].data.matches, [{
      path: "d/a.txt",
      line: 2,
      column: 1,
      text: "TWO",
    }]);
    assert.deepEqual(
      [out.shell.content[0].data.stdout.text, out.shell.content[0].data.stderr.text],
      ["one\nTWO\n", "e\n"],
    );
    assert.equal(out.denied.content[0].text, "The call was denied by `deny`: no");
    assert.equal(out.allowed.content[0].text, "ran");
  } finally {
    fs.rmSync(bundle, { force: true });
    t.rm();
  }
});
