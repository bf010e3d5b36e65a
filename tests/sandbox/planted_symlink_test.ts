/**
 * A confined tool that may write its Artifact cannot plant a symlink where a later
 * sandbox binds a path: bubblewrap follows a bind's source on the host, so a relative
 * symlink at a declared `sandbox_read` / `sandbox_write` path inside the writable
 * Artifact (`app/data -> ../../../tmp`) bound the host's `/tmp` (or `/etc`, `/proc`) over
 * the sandbox's own on the next call. A bind source that runs through a symlink below the
 * workspace or a writable path refuses the run.
 */

import assert from "node:assert/strict";
import { Registry } from "../../lib/registry/registry.ts";
import { loadWorkspace } from "../../lib/workspace/load_workspace.ts";
import { tempWorkspace } from "../helpers/workspace.ts";
import { printSkip, skipReason } from "./_corpus.ts";

// plant: a relative symlink app/data -> (up to /)tmp; read: print the host secret if seen.
const TOOL = `#!/bin/sh
if [ "$1" = plant ]; then
  up=$(printf '%s' "$PWD" | sed 's|/[^/]*|../|g')
  ln -s "\${up}tmp" data && echo planted
else
  cat "$SECRET/id_rsa" "$VIA/\${SECRET##*/}/id_rsa" 2>/dev/null || echo "not seen"
fi
`;

const tool = (name: string, arg: string, extra: string) =>
  `\n[artifacts.app.views.agent_tools.${name}]\ndescription = "${name}"\nprotocol = "plain"\n` +
  `command = "./tool.sh"\nargs = ["${arg}"]\nsandbox = "write"\n${extra}\n`;

const TOML = `[artifacts.app]\npath = "app"\n\n[artifacts.app.evals.review]\naudience = "agent"\n` +
  tool("plant", "plant", "") +
  tool("read_ro", "read", 'sandbox_read = ["app/data"]') +
  tool("read_rw", "read", 'sandbox_write = ["app/data"]');

const text = (r: { content: unknown[] }) => (r.content[0] as { text: string }).text;

for (const reader of ["read_ro", "read_rw"]) {
  Deno.test(`a symlink planted at a bound path is never followed out of the sandbox (${reader})`, async (t) => {
    const skip = skipReason();
    if (skip !== undefined) return printSkip(t.name, skip);
    const secret = Deno.makeTempDirSync({ prefix: "toolhost_secret_" });
    const mark = `SECRET-${crypto.randomUUID()}`;
    Deno.writeTextFileSync(`${secret}/id_rsa`, `${mark}\n`);
    await using ws = await tempWorkspace(TOML, { "app/tool.sh": { text: TOOL, mode: 0o755 } });
    const reg = await Registry.open(await loadWorkspace(ws.root), "app/review", {
      stateDir: `${ws.root}/.toolhost/state`,
      env: { PATH: "/usr/bin:/bin", SECRET: secret },
    });
    try {
      const planted = await reg.call("plant_app", {});
      assert.equal(text(planted).trim(), "planted", JSON.stringify(planted));
      assert.ok(Deno.lstatSync(`${ws.root}/app/data`).isSymlink);
      let seen = "";
      try {
        seen = JSON.stringify(await reg.call(`${reader}_app`, {}));
      } catch (e) {
        seen = String(e); // refused: fine, as long as nothing was read
      }
      assert.ok(!seen.includes(mark), `the host's secret was read through the symlink: ${seen}`);
      assert.match(seen, /refused: a path its sandbox binds runs through a symlink/);
    } finally {
      await reg.close();
      Deno.removeSync(secret, { recursive: true });
    }
  });
}

Deno.test("a symlink planted in another declaration's sandbox_write folder is never followed", async (t) => {
  const skip = skipReason();
  if (skip !== undefined) return printSkip(t.name, skip);
  const secret = Deno.makeTempDirSync({ prefix: "toolhost_secret_" });
  const shared = Deno.realPathSync(Deno.makeTempDirSync({ prefix: "toolhost_shared_" }));
  const mark = `SECRET-${crypto.randomUUID()}`;
  Deno.writeTextFileSync(`${secret}/id_rsa`, `${mark}\n`);
  // plant: confined, may write only the shared folder outside the workspace; read: may
  // only read a path inside it.
  const toml =
    `[artifacts.app]\npath = "app"\n\n[artifacts.app.evals.review]\naudience = "agent"\n` +
    `\n[artifacts.app.views.agent_tools.plant]\ndescription = "plant"\nprotocol = "plain"\n` +
    `command = "./plant.sh"\nargs = []\nsandbox = "none"\nsandbox_write = ["${shared}"]\n` +
    `\n[artifacts.app.views.agent_tools.read]\ndescription = "read"\nprotocol = "plain"\n` +
    `command = "./tool.sh"\nargs = ["read"]\nsandbox = "read"\nsandbox_read = ["${shared}/data"]\n`;
  const plant = `#!/bin/sh\ncd "${shared}" && up=$(printf '%s' "$PWD" | sed 's|/[^/]*|../|g') && ` +
    `ln -s "\${up}tmp" data && echo planted\n`;
  await using ws = await tempWorkspace(toml, {
    "app/tool.sh": { text: TOOL, mode: 0o755 },
    "app/plant.sh": { text: plant, mode: 0o755 },
  });
  const reg = await Registry.open(await loadWorkspace(ws.root), "app/review", {
    stateDir: `${ws.root}/.toolhost/state`,
    // The host's /tmp, bound at the declared path, shows the secret below it.
    env: { PATH: "/usr/bin:/bin", SECRET: secret, VIA: `${shared}/data` },
  });
  try {
    const planted = await reg.call("plant_app", {});
    assert.equal(text(planted).trim(), "planted", JSON.stringify(planted));
    const seen = JSON.stringify(await reg.call("read_app", {}));
    assert.ok(!seen.includes(mark), `the host's secret was read through the symlink: ${seen}`);
    assert.match(seen, /refused: a path its sandbox binds runs through a symlink/);
  } finally {
    await reg.close();
    Deno.removeSync(secret, { recursive: true });
    Deno.removeSync(shared, { recursive: true });
  }
});
