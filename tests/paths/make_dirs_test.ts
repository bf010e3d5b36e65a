/**
 * `makeDirs`: a bounded `mkdir -p` of toolhost's own, because Node 20's recursive mkdir
 * spins forever on paths such as `/proc/nope` (issue 17).
 *
 * @module
 */

import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { makeDirs, makeDirsSync } from "../../lib/paths/make_dirs.ts";
import { EXAMPLES, REPO_ROOT } from "../helpers/cli.ts";

Deno.test("makeDirs creates missing parents with the mode, keeps existing folders", async () => {
  const root = Deno.makeTempDirSync({ prefix: "toolhost-mkdirs-" });
  try {
    makeDirsSync(`${root}/a/b/c`, 0o700);
    assert.equal(fs.statSync(`${root}/a/b/c`).mode & 0o777, 0o700);
    assert.equal(fs.statSync(`${root}/a`).mode & 0o777, 0o700);
    makeDirsSync(`${root}/a/b/c`, 0o700); // idempotent
    await makeDirs(`${root}/a/x/y`, 0o700);
    assert.ok(fs.statSync(`${root}/a/x/y`).isDirectory());
    fs.writeFileSync(`${root}/file`, "");
    assert.throws(() => makeDirsSync(`${root}/file/sub`), { code: "ENOTDIR" });
    assert.throws(() => makeDirsSync(`${root}/file`), { code: "ENOTDIR" });
    await assert.rejects(makeDirs(`${root}/file/sub`), { code: "ENOTDIR" });
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
});

Deno.test("makeDirs fails at once where the kernel refuses (/proc/nope)", async () => {
  if (!fs.existsSync("/proc/self")) return console.log("SKIP: no /proc on this machine");
  assert.throws(() => makeDirsSync("/proc/nope/deeper", 0o700), { code: "ENOENT" });
  await assert.rejects(makeDirs("/proc/nope", 0o700), { code: "ENOENT" });
});

async function nodeVersion(): Promise<string | undefined> {
  try {
    const r = await new Deno.Command("node", { args: ["--version"], stdout: "piped" }).output();
    return r.success ? new TextDecoder().decode(r.stdout).trim() : undefined;
  } catch {
    return undefined;
  }
}

Deno.test("under Node, `tools call --state-dir /proc/nope` ends promptly with a clear error", async () => {
  const version = await nodeVersion();
  if (version === undefined) return console.log("SKIP: node is not installed");
  const tmp = Deno.makeTempDirSync({ prefix: "toolhost-node-cli-" });
  const bundle = path.join(tmp, "cli.mjs");
  try {
    const entry = `${REPO_ROOT}/tests/fixtures/cli/node_cli.ts`;
    const b = await new Deno.Command(Deno.execPath(), {
      args: ["bundle", "--quiet", "--platform", "node", "-o", bundle, entry],
      stderr: "piped",
    }).output();
    assert.equal(b.code, 0, new TextDecoder().decode(b.stderr));
    const args = [bundle, "tools", "call", "stats_app", "--eval", "app/review", "--repo", EXAMPLES];
    args.push("--args", '{"file":"README.md"}', "--state-dir", "/proc/nope");
    const child = new Deno.Command("node", { args, stdout: "piped", stderr: "piped" }).spawn();
    // Not a timing assertion: a spinning mkdir never ends, so a generous cap turns the hang
    // into a failure instead of a stuck suite. SIGKILL: the spinning loop ignores SIGTERM.
    const cap = setTimeout(() => child.kill("SIGKILL"), 120_000);
    const r = await child.output();
    clearTimeout(cap);
    assert.equal(r.signal, null, `node ${version} hung on the state directory`);
    assert.equal(r.code, 1);
    const out = JSON.parse(new TextDecoder().decode(r.stdout));
    assert.equal(out.isError, true);
    assert.match(out.content[0].text, /state directory/);
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
});
