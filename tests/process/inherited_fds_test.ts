/**
 * A descriptor leaked to toolhost by whoever started it (no close-on-exec) must not reach
 * the tools it starts: bubblewrap passes descriptors into a sandbox unchanged, and a
 * directory descriptor from outside reaches outside the sandbox's mounts. The Node
 * entries (the npm package, the single executable) call `closeInheritedFds()` first;
 * Deno's `node:fs` cannot close a descriptor it did not open, so `cli.ts` closes them
 * through FFI (deno_leaked_fds_test.ts).
 */

import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import ts from "typescript";

const LIB = new URL("../../lib/process/inherited_fds.ts", import.meta.url);

/** Run `program args…` from a shell that first leaks fd 200 (a folder) and 201 (/dev/null). */
async function withLeakedFds(program: string, args: string[]): Promise<string> {
  // bash: dash takes single-digit descriptors only.
  const out = await new Deno.Command("/bin/bash", {
    args: ["-c", 'exec 200</ 201</dev/null; exec "$@"', "bash", program, ...args],
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(out.stdout);
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  return text;
}

const PROBE = `
import { spawnSync } from "node:child_process";
const closed = closeInheritedFds(DRY);
const child = spawnSync("/bin/sh", ["-c", "ls /proc/$$/fd"], { encoding: "utf8" });
console.log(JSON.stringify({ closed, child: child.stdout.split("\\n").filter(Boolean).map(Number) }));
`;

Deno.test("closeInheritedFds finds a descriptor leaked without close-on-exec, never stdio or /dev/null", async () => {
  const dir = mkdtempSync(join(tmpdir(), "toolhost_fds_"));
  try {
    const script = join(dir, "probe.ts");
    writeFileSync(
      script,
      `import { closeInheritedFds } from ${JSON.stringify(LIB.href)};\n` +
        PROBE.replace("DRY", "{ dryRun: true }"),
    );
    const r = JSON.parse(await withLeakedFds(Deno.execPath(), ["run", "-A", script]));
    assert.ok(r.closed.includes(200), JSON.stringify(r));
    assert.ok(!r.closed.includes(201), "/dev/null is left alone");
    assert.ok(r.closed.every((fd: number) => fd >= 3), "stdio is never touched");
    assert.ok(r.child.includes(200), "a dry run closes nothing");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

Deno.test("under Node (npm package, single executable) the leaked descriptor is closed before any spawn", async (t) => {
  const node = new Deno.Command("/bin/sh", { args: ["-c", "command -v node"], stdout: "piped" })
    .outputSync();
  if (!node.success) {
    console.log(`SKIP ${t.name}: node is not on PATH`);
    return;
  }
  const dir = mkdtempSync(join(tmpdir(), "toolhost_fds_"));
  try {
    const js = ts.transpileModule(readFileSync(LIB, "utf8"), {
      compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
    }).outputText;
    writeFileSync(join(dir, "inherited_fds.mjs"), js);
    writeFileSync(
      join(dir, "probe.mjs"),
      `import { closeInheritedFds } from "./inherited_fds.mjs";\n` + PROBE.replace("DRY", "{}"),
    );
    const r = JSON.parse(await withLeakedFds("node", [join(dir, "probe.mjs")]));
    assert.ok(r.closed.includes(200), JSON.stringify(r));
    assert.ok(!r.child.includes(200), `the child still holds the leaked folder: ${r.child}`);
    assert.ok(r.child.includes(201), "/dev/null is left alone");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
