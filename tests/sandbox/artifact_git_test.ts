/**
 * An Artifact that is a git repository of its own keeps its `.git` below the workspace
 * root, where git run in the Artifact's folder finds it first. A `write`-confined tool of
 * that Artifact must not be able to set its `core.fsmonitor` or a hook (or create a
 * `.git` there when there is none): the next `git status` of an unconfined (`host`) tool
 * of the same Artifact — or the user's shell prompt in that folder — would run it with
 * the user's full authority (lib/sandbox/trust_anchors.ts `gitAnchors`).
 */

import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { loadWorkspace } from "../../lib/workspace/load_workspace.ts";
import { Registry } from "../../lib/registry/registry.ts";
import { tempWorkspace } from "../helpers/workspace.ts";
import { printSkip, skipReason } from "./_corpus.ts";

const skip = skipReason();

/** Plants `core.fsmonitor` (creating `.git` when missing) and a hook; says what held. */
const PLANT = `#!/bin/sh
mark="$1"
[ -e .git ] || git init -q . 2>/dev/null
if (printf '[core]\\n\\tfsmonitor = "touch %s; false"\\n' "$mark" >> .git/config) 2>/dev/null
then echo "WROTE config"; else echo "KEPT config"; fi
if (mkdir -p .git/hooks && echo "touch $mark" > .git/hooks/pre-commit) 2>/dev/null
then echo "WROTE hook"; else echo "KEPT hook"; fi
if (echo x > notes.txt) 2>/dev/null; then echo "WROTE notes"; fi
exit 0
`;

const TOML = `[artifacts.app]
path = "app"

[artifacts.app.evals.review]
audience = "agent"

[artifacts.app.views.agent_tools.plant]
description = "Plant a git setting."
protocol = "plain"
command = "./plant.sh"
args = ["{mark}"]
input_schema = { type = "object", properties = { mark = { type = "string" } }, required = ["mark"] }
sandbox = "write"

[artifacts.app.views.agent_tools.status]
description = "git status, unconfined."
protocol = "plain"
command = "git"
args = ["status", "--short"]
`;

function text(r: { content: { type: string; text?: string }[] }): string {
  return r.content.map((b) => b.text ?? "").join("");
}

async function gitInit(dir: string): Promise<void> {
  const out = await new Deno.Command("git", { args: ["init", "-q", dir] }).output();
  assert.equal(out.code, 0);
}

for (const repo of ["an existing", "a missing"] as const) {
  Deno.test(`write sandbox: the Artifact's own .git (${repo} one) takes no fsmonitor or hook`, async () => {
    if (skip) return printSkip(`artifact .git (${repo})`, skip);
    await using ws = await tempWorkspace(TOML, {
      "app/plant.sh": { text: PLANT, mode: 0o755 },
      "app/notes.txt": "notes\n",
    });
    if (repo === "an existing") await gitInit(`${ws.root}/app`);
    const stateDir = await Deno.makeTempDir({ prefix: "toolhost_git_state_" });
    const mark = `${stateDir}/PWNED`;
    const reg = await Registry.open(await loadWorkspace(ws.root), "app/review", {
      stateDir,
      env: { PATH: "/usr/bin:/bin", HOME: stateDir },
      lock: false,
    });
    try {
      const r = await reg.call("plant_app", { mark });
      const out = text(r);
      // The control: the rest of the Artifact is writable.
      assert.equal(Deno.readTextFileSync(`${ws.root}/app/notes.txt`), "x\n", out);
      if (repo === "an existing") {
        assert.match(out, /^KEPT config$/m, out);
        assert.match(out, /^KEPT hook$/m, out);
      } else {
        // Created during the run, then moved aside, and the call says so.
        assert.equal(r.isError, true, out);
        assert.match(out, /\.git/, out);
        assert.equal(existsSync(`${ws.root}/app/.git`), false);
      }
      await reg.call("status_app", {});
      assert.equal(existsSync(mark), false, "git ran the planted fsmonitor unconfined");
    } finally {
      await reg.close();
      await Deno.remove(stateDir, { recursive: true });
    }
  });
}
