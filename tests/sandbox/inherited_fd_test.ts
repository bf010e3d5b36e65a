/**
 * The library cannot close what its host application inherited without close-on-exec
 * (the CLI does, lib/process/inherited_fds.ts), and bubblewrap passes every such
 * descriptor into the sandbox — to the tool and to the namespace's init, whose
 * `/proc/1/fd` the tool can open. A folder descriptor from outside reaches the host's
 * files. A sandbox's spawn gives the child `/dev/null` at each of those numbers instead
 * (lib/process/leaked_fds.ts): run through the library with a host folder open as fd 9
 * and fd 300, the confined tool (cold and warm) sees neither there nor through its init.
 */

import assert from "node:assert/strict";
import { closeSync, openSync } from "node:fs";
import { coverLeakedFds, leakedFds, MAX_COVERED_FD } from "../../lib/process/leaked_fds.ts";
import { REPO_ROOT } from "../helpers/cli.ts";
import { tempWorkspace } from "../helpers/workspace.ts";
import { printSkip, skipReason } from "./_corpus.ts";

Deno.test("coverLeakedFds: /dev/null at every inherited number the spawn leaves alone", () => {
  const out = coverLeakedFds(["pipe", "pipe", "pipe", "pipe", "ignore", 40], [4, 5, 9]);
  assert.equal(out.length, 10);
  assert.equal(out[3], "pipe");
  assert.equal(out[5], 40); // the spawn's own descriptor there stays
  assert.equal(typeof out[4], "number");
  assert.equal(typeof out[9], "number");
  assert.notEqual(out[9], out[4]); // one source per number: Deno refuses a shared one
  assert.equal(out[6], "ignore");
  assert.throws(() => coverLeakedFds([], [MAX_COVERED_FD + 1]), /descriptor/);
  // A cover is never itself at a number the spawn sets (Deno's spawn would overwrite it
  // before reading it): the next descriptor opened would land on such a number here.
  const probe = openSync("/dev/null", "r");
  closeSync(probe);
  const busy: ("pipe" | "ignore" | number)[] = ["pipe", "pipe", "pipe"];
  while (busy.length <= probe) busy.push("pipe");
  const covered = coverLeakedFds(busy, [probe + 700]);
  assert.equal(typeof covered[probe + 700], "number");
  assert.ok((covered[probe + 700] as number) > probe, "the cover sits on a number the spawn sets");
  // This test process opens everything with close-on-exec.
  assert.ok(leakedFds().every((fd) => fd >= 3));
});

const TOML = `[artifacts.app]
path = "app"

[artifacts.app.evals.review]
audience = "agent"

[artifacts.app.views.agent_tools.fds]
description = "Look for a host folder through inherited descriptors."
protocol = "plain"
command = "./fds.sh"
args = []
sandbox = "read"
`;

/** Lists the host folder's marker through any descriptor of its own or of its init. */
const FDS = `#!/bin/sh
for f in /proc/self/fd/* /proc/1/fd/*; do
  ls "$f/" 2>/dev/null | grep -q HOSTMARK && echo "ESCAPED $f"
done
echo done
`;

/** The library, run by a host that leaked fds 9 and 300 (a folder outside everything). */
function hostScript(root: string, warm: boolean): string {
  return `
import { loadWorkspace } from "${REPO_ROOT}/lib/workspace/load_workspace.ts";
import { Registry } from "${REPO_ROOT}/lib/registry/registry.ts";
const reg = await Registry.open(await loadWorkspace(${JSON.stringify(root)}), "app/review", {
  env: { PATH: "/usr/bin:/bin" }, lock: false, warmSandboxes: ${warm},
});
let out = "";
for (let i = 0; i < ${warm ? 3 : 1}; i++) {
  const r = await reg.call("fds_app", {});
  out += r.content.map((b) => b.text ?? "").join("");
  if (${warm}) await reg.warm?.settled();
}
await reg.close();
console.log(out);
`;
}

for (const warm of [false, true]) {
  Deno.test(`library: a host's inherited folder descriptor never reaches a sandbox (${warm ? "warm" : "cold"})`, async (t) => {
    const skip = skipReason();
    if (skip !== undefined) return printSkip(t.name, skip);
    await using ws = await tempWorkspace(TOML, { "app/fds.sh": { text: FDS, mode: 0o755 } });
    const host = await Deno.makeTempDir({ prefix: "toolhost_leak_" });
    Deno.writeTextFileSync(`${host}/HOSTMARK`, "x\n");
    const script = `${ws.root}/host.ts`;
    Deno.writeTextFileSync(script, hostScript(ws.root, warm));
    try {
      // sh opens the folder as fds 9 and 300 without close-on-exec, then becomes Deno.
      const out = await new Deno.Command("/bin/bash", {
        args: [
          "-c",
          'exec 9<"$1" 300<"$1"; exec "$0" run -A --config "$2/deno.json" "$3"',
          Deno.execPath(),
          host,
          REPO_ROOT,
          script,
        ],
        stdout: "piped",
        stderr: "piped",
      }).output();
      const text = new TextDecoder().decode(out.stdout);
      assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
      assert.match(text, /done/);
      assert.doesNotMatch(text, /ESCAPED/, text);
    } finally {
      await Deno.remove(host, { recursive: true });
    }
  });
}
