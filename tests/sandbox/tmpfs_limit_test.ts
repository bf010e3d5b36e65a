/**
 * A confined tool's private `/tmp` and `/dev/shm` are tmpfs: memory, not disk. With
 * `max_memory_mb`, what a tool stores there must be bounded by that limit too — rlimit
 * mode sums resident memory, which tmpfs pages are not (they were bounded only by the
 * kernel's default, half the host's RAM each). Each is now at most `max_memory_mb`, and
 * what they hold counts toward the limit (tests/limits/held_memory_test.ts).
 */

import assert from "node:assert/strict";
import { currentEnforcement } from "../../lib/limits/enforcement.ts";
import { loadWorkspace } from "../../lib/workspace/load_workspace.ts";
import { Registry } from "../../lib/registry/registry.ts";
import { tempWorkspace } from "../helpers/workspace.ts";
import { printSkip, skipReason } from "./_corpus.ts";

const FILL = `#!/bin/sh
for d in /tmp /dev/shm; do
  dd if=/dev/zero of="$d/fill" bs=1M count=96 2>/dev/null
  echo "$d $(( $(wc -c < "$d/fill") / 1048576 ))"
  rm -f "$d/fill"
done
`;

const TOML = `[artifacts.app]
path = "app"

[artifacts.app.evals.review]
audience = "agent"

[artifacts.app.views.agent_tools.fill]
description = "Fill the private tmpfs folders."
protocol = "plain"
command = "tools/fill.sh"
args = []
sandbox = "none"
max_memory_mb = 32
`;

const skip = skipReason() ??
  (currentEnforcement().mode === "none" ? "resource limits are not enforceable here" : undefined);

Deno.test("a confined tool with max_memory_mb cannot store more than that in /tmp or /dev/shm", async () => {
  if (skip) return printSkip("tmpfs limit", skip);
  await using ws = await tempWorkspace(TOML, { "app/tools/fill.sh": { text: FILL, mode: 0o755 } });
  const reg = await Registry.open(await loadWorkspace(ws.root), "app/review", {
    stateDir: `${ws.root}/.toolhost/state`,
    env: { PATH: "/usr/bin:/bin" },
  });
  try {
    const r = await reg.call("fill_app", {});
    const out = r.content.map((b) => "text" in b ? b.text : "").join("");
    // What it stores there also counts toward the limit (lib/limits/sandbox_tmpfs.ts): a
    // watchdog round that sees a full mount stops the tool. The cap bounds it in between.
    if (r.isError) return assert.equal(out, "The tool was stopped: resource limit: memory.");
    for (const d of ["/tmp", "/dev/shm"]) {
      const mib = Number(new RegExp(`^${d} (\\d+)$`, "m").exec(out)?.[1]);
      assert.ok(mib <= 32, `${d} held ${mib} MiB: ${out}`);
    }
  } finally {
    await reg.close();
  }
});
