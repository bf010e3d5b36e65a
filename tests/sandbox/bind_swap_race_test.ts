/**
 * A bind source swapped for a symlink after toolhost checked it is never mounted: the
 * check ran on the path and bwrap mounted the path, so anything that may write the
 * workspace (here a racing process) could swap a checked folder for a symlink to a
 * secret folder in between, and the confined tool read it (or wrote it, under
 * `sandbox_write`). Each source is now opened once, checked on what was opened, and
 * mounted from that descriptor (`--bind-fd`).
 *
 * The racer swaps the folder (or a folder above it) with a symlink to a secret folder
 * outside the workspace in a tight loop while calls run, cold and warm. With path binds
 * the secret showed within a few dozen rounds (checked when this test was written).
 */

import assert from "node:assert/strict";
import { Registry } from "../../lib/registry/registry.ts";
import { loadWorkspace } from "../../lib/workspace/load_workspace.ts";
import { tempWorkspace } from "../helpers/workspace.ts";
import { printSkip, skipReason } from "./_corpus.ts";

const TOOL = `#!/bin/sh
cat "$BOUND/id_rsa" 2>/dev/null || echo "not seen"
`;

/** Swaps `swap` <-> `swap.lnk` (a symlink to the secret) until killed. */
const RACER = `
const [swap] = Deno.args;
for (;;) {
  try {
    Deno.renameSync(swap, swap + ".real");
    Deno.renameSync(swap + ".lnk", swap);
    for (let i = 0; i < 200; i++) Deno.lstatSync(swap);
    Deno.renameSync(swap, swap + ".lnk");
    Deno.renameSync(swap + ".real", swap);
    for (let i = 0; i < 200; i++) Deno.lstatSync(swap);
  } catch { /* a call's check in between: go on */ }
}
`;

const ROUNDS = 60;

const CASES = [
  { name: "a read-only bind source swapped", key: "sandbox_read", bound: "data", swap: "data" },
  { name: "a writable bind source swapped", key: "sandbox_write", bound: "data", swap: "data" },
  {
    name: "a folder above a bind source swapped",
    key: "sandbox_read",
    bound: "sub/data",
    swap: "sub",
  },
];

for (const c of CASES) {
  for (const warm of [false, true]) {
    Deno.test(`${c.name} for a symlink mid-call is never mounted (${warm ? "warm" : "cold"})`, async (t) => {
      const skip = skipReason();
      if (skip !== undefined) return printSkip(t.name, skip);
      const secret = Deno.realPathSync(Deno.makeTempDirSync({ prefix: "toolhost_secret_" }));
      const mark = `SECRET-${crypto.randomUUID()}`;
      const secretDir = c.swap === c.bound ? secret : `${secret}/data`;
      Deno.mkdirSync(secretDir, { recursive: true });
      Deno.writeTextFileSync(`${secretDir}/id_rsa`, `${mark}\n`);
      const toml =
        `[artifacts.app]\npath = "app"\n\n[artifacts.app.evals.review]\naudience = "agent"\n` +
        `\n[artifacts.app.views.agent_tools.read]\ndescription = "read"\nprotocol = "plain"\n` +
        `command = "./tool.sh"\nargs = []\nsandbox = "none"\n${c.key} = ["${c.bound}"]\n`;
      await using ws = await tempWorkspace(toml, {
        "app/tool.sh": { text: TOOL, mode: 0o755 },
        [`${c.bound}/id_rsa`]: "public\n",
      });
      const swap = `${ws.root}/${c.swap}`;
      Deno.symlinkSync(c.swap === c.bound ? secret : secret, `${swap}.lnk`);
      const reg = await Registry.open(await loadWorkspace(ws.root), "app/review", {
        stateDir: `${ws.root}/.toolhost/state`,
        env: { PATH: "/usr/bin:/bin", BOUND: `${ws.root}/${c.bound}` },
        warmSandboxes: warm,
      });
      const racer = new Deno.Command(Deno.execPath(), {
        args: ["eval", RACER, swap],
        stdout: "null",
        stderr: "null",
      }).spawn();
      const seen: string[] = [];
      try {
        for (let round = 0; round < ROUNDS; round++) {
          try {
            seen.push(JSON.stringify(await reg.call("read_app", {})));
          } catch (e) {
            seen.push(String(e)); // refused: fine, as long as nothing was read
          }
        }
      } finally {
        racer.kill("SIGKILL");
        await racer.status;
        await reg.close();
        Deno.removeSync(secret, { recursive: true });
      }
      const leaked = seen.filter((s) => s.includes(mark)).length;
      assert.equal(leaked, 0, `the secret was mounted in ${leaked} of ${ROUNDS} calls`);
      // The calls ran: some saw the real folder (the race does not refuse every call).
      assert.ok(seen.some((s) => s.includes("public")), seen.slice(0, 3).join("\n"));
    });
  }
}
