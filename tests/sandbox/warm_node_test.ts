/**
 * Warm sandboxes under Node (the npm build): extra stdio descriptors are socketpairs
 * there and no setsid launcher is used, yet a call in a warm sandbox still sees exactly
 * the cold path's environment, argv, working directory and descriptors.
 */

import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { waiterShell } from "../../lib/process/warm_script.ts";
import { printSkip, skipReason } from "./_corpus.ts";
import { normalize, PROBE, TRICKY } from "./_warm.ts";

const LIB = new URL("../../lib/", import.meta.url).pathname;

const ENTRY = `
import process from "node:process";
import { openConfine } from "${LIB}sandbox/confine.ts";
import { WarmPool } from "${LIB}sandbox/warm_pool.ts";
import { invokePlainCommand } from "${LIB}protocols/invoke.ts";
const root = process.argv[2];
const stateDir = root + "/state";
const ws = { root, manifestPath: root + "/toolhost.toml", artifacts: new Map(), evals: new Map(), extra: {} };
const c = openConfine({ policy: { mode: "none", network: false, read: [], write: [] }, stateDir },
  { ws, scope: [], executionPaths: [] });
if (!c.ok) throw new Error(c.reason);
const values = JSON.parse(process.argv[3]);
const env = { PATH: "/usr/bin:/bin" };
values.forEach((v, i) => (env["V" + i] = v));
const pool = new WarmPool();
const call = (warm) => invokePlainCommand({
  command: "/bin/sh", template: ["-c", "{script}", "sh", "{a}", "{b}"], properties: ["script", "a", "b"],
  args: { script: process.argv[4], a: values.join("|"), b: "" },
  cwd: "/", stateDir, baseEnv: env, confine: c.confine, warm,
});
const text = (r) => r.content.map((b) => b.text).join("");
const cold = text(await call(undefined));
await call(pool);
await pool.settled();
const warm = text(await call(pool));
const taken = pool.stats.taken;
await pool.close();
console.log(JSON.stringify({ cold, warm, taken }));
`;

function nodeAvailable(): boolean {
  try {
    return new Deno.Command("node", { args: ["--version"], stdout: "null" }).outputSync().success;
  } catch {
    return false;
  }
}

Deno.test("warm sandbox under Node: the tool sees the cold path's env, argv, cwd and fds", async () => {
  const skip = skipReason() ??
    (waiterShell() === null ? "no trusted dash" : nodeAvailable() ? undefined : "no node");
  if (skip) return printSkip("warm under Node", skip);
  const dir = mkdtempSync(join(tmpdir(), "toolhost-warm-node-"));
  try {
    writeFileSync(join(dir, "entry.ts"), ENTRY);
    const bundle = await new Deno.Command(Deno.execPath(), {
      args: [
        "bundle",
        "--quiet",
        "--platform",
        "node",
        "-o",
        join(dir, "entry.mjs"),
        join(dir, "entry.ts"),
      ],
      stdout: "null",
    }).output();
    assert.ok(bundle.success, new TextDecoder().decode(bundle.stderr));
    const values = TRICKY;
    const out = await new Deno.Command("node", {
      args: [join(dir, "entry.mjs"), dir, JSON.stringify(values), PROBE],
    }).output();
    assert.ok(out.success, new TextDecoder().decode(out.stderr));
    const r = JSON.parse(new TextDecoder().decode(out.stdout));
    assert.equal(r.taken, 1, "the last call ran in a warm sandbox");
    assert.match(r.cold, /^fd 0 /m);
    assert.equal(normalize(r.warm), normalize(r.cold));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
