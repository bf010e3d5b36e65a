/**
 * `toolhost --help` ends with examples a reader without a clone can follow, in an empty
 * folder, one after the other: the names they use are the ones `init` makes.
 */

import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCapture, runProcess } from "../helpers/cli.ts";

Deno.test("toolhost --help: the examples run in an empty folder, in order", async () => {
  const help = await runCapture(["--help"]);
  assert.equal(help.code, 0);
  const lines = help.out.split("\n");
  const at = lines.indexOf("Examples:");
  assert.ok(at > 0, help.out);
  const examples = lines.slice(at + 1).filter((l) => l.startsWith("  toolhost "))
    .map((l) => l.replace(/\s+#.*$/, "").trim());
  assert.deepEqual(examples.map((l) => l.split(" ").slice(1, 3).join(" ")), [
    "init json-tool",
    "tools check",
    "tools call",
    "serve --eval",
  ]);
  const dir = mkdtempSync(join(tmpdir(), "toolhost-root-help-"));
  try {
    const init = await runProcess(["init", "json-tool", "greet"], { cwd: dir });
    assert.equal(init.code, 0, init.err);
    // The tool and eval the later examples name are the ones init created.
    assert.match(init.out, /Agents see greet_tools in eval tools\/agent\./);
    assert.ok(examples[2].includes("greet_tools --eval tools/agent"));
    assert.ok(examples[3].endsWith("--eval tools/agent"));
    const check = await runProcess(["tools", "check"], { cwd: dir });
    assert.ok(check.code === 0 || /confinement/.test(check.out), check.out + check.err);
    if (check.code === 0) { // confinement works here: the call runs too
      const args = JSON.parse(examples[2].match(/--args '(.*)'$/)![1]);
      const call = await runProcess(
        ["tools", "call", "greet_tools", "--eval", "tools/agent", "--args", JSON.stringify(args)],
        { cwd: dir },
      );
      assert.equal(call.code, 0, call.out + call.err);
      assert.match(call.out, /Hello, Ada!/);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
