import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { TOOLS } from "./helpers.ts";

const LIB = new URL("../../lib/", import.meta.url).pathname;

const ENTRY = `
import { liveGroupMembers, readProcStat, runBounded, spawnGroup } from "${LIB}process/mod.ts";
import { normalizeJsonOutput } from "${LIB}protocols/json_output.ts";
const env = { PATH: process.env.PATH, HOME: "/" };
const h = await spawnGroup({ command: "/bin/sleep", args: ["30"], cwd: "/", env });
h.stdout.resume(); h.stderr.resume();
const st = readProcStat(h.record.pid);
const leader = st.pgrp === h.record.pid && st.sid === h.record.pid;
const term = await h.terminate({ graceMs: 100 });
const r = await runBounded({ command: "${TOOLS}misbehave.sh", args: ["detach", process.argv[2]], cwd: "/", env, graceMs: 100 });
const result = await normalizeJsonOutput(r, "/nonexistent");
const yes = await runBounded({ command: "${TOOLS}misbehave.sh", args: ["forever"], cwd: "/", env });
console.log(JSON.stringify({ leader, term, live: liveGroupMembers(r.record.pgid).members.length, result,
  overflow: yes.stdoutOverflow, kept: yes.stdout.length }));
`;

function nodeAvailable(): boolean {
  try {
    return new Deno.Command("node", { args: ["--version"], stdout: "null" }).outputSync().success;
  } catch {
    return false;
  }
}

Deno.test({
  name: "lib/process runs under Node too: group leader, cleanup, caps",
  ignore: !nodeAvailable(),
  async fn() {
    const dir = mkdtempSync(join(tmpdir(), "toolhost-node-"));
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
      const out = await new Deno.Command("node", {
        args: [join(dir, "entry.mjs"), join(dir, "pids")],
      }).output();
      assert.ok(out.success, new TextDecoder().decode(out.stderr));
      const report = JSON.parse(new TextDecoder().decode(out.stdout));
      assert.deepEqual(report, {
        leader: true,
        term: { confirmed: true, signalled: true },
        live: 0,
        result: { content: [{ type: "text", text: "left children behind" }], isError: false },
        overflow: true,
        kept: 16 * 1024 * 1024,
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
});
