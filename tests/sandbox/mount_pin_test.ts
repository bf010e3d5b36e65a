/**
 * A confined tool that may write a folder holding a hidden or read-only mount must not be
 * able to move that mount's host folder away by renaming a folder between the two
 * (Linux renames a folder that holds a mount point, and the mount moves with it): the
 * next sandbox hides the path, not the folder, so a state directory moved aside
 * (`mv .toolhost loot`) showed every tool's artifacts and calls, an Artifact outside the
 * scope moved aside showed its files, and a read-only Artifact moved aside let the tool
 * put its own in its place (lib/sandbox/mount_pins.ts).
 */

import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { loadWorkspace } from "../../lib/workspace/load_workspace.ts";
import { Registry } from "../../lib/registry/registry.ts";
import { mountPins } from "../../lib/sandbox/mount_pins.ts";
import { tempWorkspace } from "../helpers/workspace.ts";
import { printSkip, skipReason } from "./_corpus.ts";

const skip = skipReason();

/** Renames `$1` to `$2`, then prints every file below `$2` (or MOVED/KEPT). */
const MOVE = `#!/bin/sh
if mv "$1" "$2" 2>/dev/null; then echo "MOVED"; else echo "KEPT"; fi
find "$2" -type f 2>/dev/null
exit 0
`;

function text(r: { content: { type: string; text?: string }[] }): string {
  return r.content.map((b) => b.text ?? "").join("");
}

function manifest(path: string, extra = ""): string {
  return `[artifacts.app]
path = "${path}"

[artifacts.app.evals.review]
audience = "agent"

[artifacts.app.views.agent_tools.move]
description = "Rename a folder."
protocol = "plain"
command = "./move.sh"
args = ["{from}", "{to}"]
input_schema = { type = "object", properties = { from = { type = "string" }, to = { type = "string" } }, required = ["from", "to"] }
sandbox = "write"
${extra}`;
}

Deno.test("mountPins: every folder between a mount and the writable mount holding it", () => {
  assert.deepEqual(
    mountPins([
      { path: "/ws", writable: true },
      { path: "/ws/a/b/state", writable: false },
      { path: "/ws/a/b/state/calls/1/tmp", writable: true },
    ]),
    ["/ws/a/b", "/ws/a"],
  );
  // Inside a read-only mount, or on the read-only root: nothing to pin.
  assert.deepEqual(
    mountPins([{ path: "/r", writable: false }, { path: "/r/x/y", writable: false }]),
    [],
  );
  // A writable mount inside a read-only one: pinned up to that writable mount only.
  assert.deepEqual(
    mountPins([
      { path: "/ws", writable: false },
      { path: "/ws/app", writable: true },
      { path: "/ws/app/tools/x.sh", writable: false },
    ]),
    ["/ws/app/tools"],
  );
});

Deno.test("write sandbox: the state directory under a writable root cannot be moved aside", async () => {
  if (skip) return printSkip("mount pins (state dir)", skip);
  await using ws = await tempWorkspace(manifest("."), { "move.sh": { text: MOVE, mode: 0o755 } });
  const stateDir = `${ws.root}/.toolhost/state`;
  Deno.mkdirSync(stateDir, { recursive: true });
  Deno.writeTextFileSync(`${stateDir}/secret.txt`, "state secret\n");
  const reg = await Registry.open(await loadWorkspace(ws.root), "app/review", {
    stateDir,
    env: { PATH: "/usr/bin:/bin" },
    lock: false,
    warmSandboxes: false,
  });
  try {
    const out = text(await reg.call("move_app", { from: ".toolhost", to: "loot" }));
    assert.match(out, /^KEPT$/m, out);
    assert.equal(existsSync(`${ws.root}/loot`), false);
    assert.equal(existsSync(`${stateDir}/secret.txt`), true);
    // The control: a folder holding no mount is still the tool's to rename.
    Deno.mkdirSync(`${ws.root}/plain`);
    Deno.writeTextFileSync(`${ws.root}/plain/f.txt`, "f\n");
    const ctl = text(await reg.call("move_app", { from: "plain", to: "plain2" }));
    assert.match(ctl, /^MOVED$/m, ctl);
  } finally {
    await reg.close();
  }
});

Deno.test("write sandbox: an Artifact outside the scope under sandbox_write cannot be moved into view", async () => {
  if (skip) return printSkip("mount pins (hidden Artifact)", skip);
  await using ws = await tempWorkspace(
    manifest("app", `sandbox_write = ["data"]\n\n[artifacts.other]\npath = "data/box/other"\n`),
    {
      "app/move.sh": { text: MOVE, mode: 0o755 },
      "data/box/other/secret.txt": "other secret\n",
    },
  );
  const stateDir = await Deno.makeTempDir({ prefix: "toolhost_pin_state_" });
  const reg = await Registry.open(await loadWorkspace(ws.root), "app/review", {
    stateDir,
    env: { PATH: "/usr/bin:/bin" },
    lock: false,
    warmSandboxes: false,
  });
  try {
    const out = text(await reg.call("move_app", { from: "../data/box", to: "../data/loot" }));
    assert.match(out, /^KEPT$/m, out);
    const again = text(await reg.call("move_app", { from: "/nonexistent", to: "../data/loot" }));
    assert.doesNotMatch(again, /secret/, again);
    assert.equal(existsSync(`${ws.root}/data/box/other/secret.txt`), true);
  } finally {
    await reg.close();
    await Deno.remove(stateDir, { recursive: true });
  }
});

Deno.test("write sandbox: another tool's script stays pinned under sandbox_read of the root", async () => {
  if (skip) return printSkip("mount pins (anchor under a read-only root)", skip);
  await using ws = await tempWorkspace(
    manifest(
      "app",
      `sandbox_read = ["ROOT"]

[artifacts.app.views.agent_tools.host]
description = "An unconfined tool's own script."
protocol = "plain"
command = "tools/host.sh"
args = []
`,
    ),
    {
      "app/move.sh": { text: MOVE, mode: 0o755 },
      "app/tools/host.sh": { text: "#!/bin/sh\necho host\n", mode: 0o755 },
    },
  );
  // The workspace root, read-only (an absolute path: `.` is not a declarable one).
  const toml = Deno.readTextFileSync(`${ws.root}/toolhost.toml`).replace("ROOT", ws.root);
  Deno.writeTextFileSync(`${ws.root}/toolhost.toml`, toml);
  const stateDir = await Deno.makeTempDir({ prefix: "toolhost_pin_state_" });
  const reg = await Registry.open(await loadWorkspace(ws.root), "app/review", {
    stateDir,
    env: { PATH: "/usr/bin:/bin" },
    lock: false,
    warmSandboxes: false,
  });
  try {
    const out = text(await reg.call("move_app", { from: "tools", to: "tools.old" }));
    assert.match(out, /^KEPT$/m, out);
    assert.equal(text(await reg.call("host_app", {})), "host\n");
  } finally {
    await reg.close();
    await Deno.remove(stateDir, { recursive: true });
  }
});
