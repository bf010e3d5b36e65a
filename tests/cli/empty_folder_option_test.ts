/**
 * An empty `--state-dir` or `--repo` (`--state-dir "$UNSET"`) is a usage error, exit 2: it
 * used to resolve to the current folder, which toolhost then made 0700 and filled with
 * `calls/` and `artifacts/` as if it were its state directory. The library refuses an
 * empty `stateDir` the same way.
 */

import assert from "node:assert/strict";
import fs from "node:fs";
import { REPO_ROOT, runProcess } from "../helpers/cli.ts";
import { BASE_FILES, BASE_TOML, withWorkspace } from "../helpers/workspace.ts";

function snapshot(root: string): { mode: number; names: string[] } {
  return { mode: fs.statSync(root).mode & 0o7777, names: fs.readdirSync(root).sort() };
}

Deno.test("an empty --state-dir or --repo: exit 2, the flag named, the current folder untouched", async () => {
  await withWorkspace(BASE_TOML, BASE_FILES, async (root) => {
    fs.chmodSync(root, 0o755);
    const before = snapshot(root);
    for (
      const argv of [
        ["tools", "call", "read_app", "--eval", "app/review", "--state-dir", ""],
        ["tools", "list", "app/review", "--state-dir="],
        ["sweep", "--state-dir", " "],
        ["tools", "list", "app/review", "--repo", ""],
      ]
    ) {
      const r = await runProcess(argv, { cwd: root });
      assert.equal(r.code, 2, `${argv.join(" ")}: ${r.err}`);
      const flag = argv.some((a) => a.startsWith("--repo")) ? "--repo" : "--state-dir";
      assert.match(r.err, new RegExp(`^toolhost: ${flag} was given an empty folder name`));
      assert.ok(!/\n\s+at /.test(r.err), r.err); // no stack trace
      assert.deepEqual(snapshot(root), before, argv.join(" "));
    }
  });
});

Deno.test("Registry.open refuses an empty stateDir before creating anything", async () => {
  await withWorkspace(BASE_TOML, BASE_FILES, async (root) => {
    fs.chmodSync(root, 0o755);
    const before = snapshot(root);
    // Opened in a child whose current folder is the workspace: the current folder is
    // process-wide, and changing it here would move every test file's running meanwhile.
    const mod = new URL("../../mod.ts", import.meta.url).href;
    const code =
      `import { loadWorkspace, PreparationFailed, Registry } from ${JSON.stringify(mod)};\n` +
      `const ws = await loadWorkspace(Deno.cwd());\n` +
      `try {\n  await Registry.open(ws, "app/review", { stateDir: "" });\n` +
      `  console.log("opened");\n} catch (e) {\n` +
      `  console.log(e instanceof PreparationFailed ? "refused" : \`other: \${e}\`);\n}\n`;
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["eval", "--quiet", "--config", `${REPO_ROOT}/deno.json`, "--ext=ts", code],
      cwd: root,
    }).output();
    assert.ok(out.success, new TextDecoder().decode(out.stderr));
    assert.equal(new TextDecoder().decode(out.stdout).trim(), "refused");
    assert.deepEqual(snapshot(root), before);
  });
});
