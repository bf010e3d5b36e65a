/**
 * A brace in a declared argument is not always a placeholder: json-protocol argv (and
 * session, hook and extension argv) is never interpolated, and in plain argv `{{`/`}}` are
 * literal braces. `sh tools/{x}.sh` (json) and `sh tools/{{y}}.sh` (plain: runs
 * `tools/{y}.sh`) run those files, so the lock pins them; only an argument holding a real
 * plain placeholder is left out (its file is the caller's choice).
 */

import assert from "node:assert/strict";
import { buildLock } from "../../lib/lock_build/build_lock.ts";
import { writeLockFile } from "../../lib/lock/lock_file.ts";
import { Registry } from "../../lib/registry/registry.ts";
import { loadWorkspace } from "../../lib/workspace/load_workspace.ts";
import { tempWorkspace } from "../helpers/workspace.ts";

const TOML = `[artifacts.app]
path = "app"

[artifacts.app.evals.review]
audience = "agent"

[artifacts.app.views.agent_tools.jsonish]
description = "Json argv is literal."
protocol = "json"
command = "sh"
args = ["tools/{x}.sh"]

[artifacts.app.views.agent_tools.plainish]
description = "Plain argv with escaped braces."
protocol = "plain"
command = "sh"
args = ["tools/{{y}}.sh"]
`;

const JSON_OUT = `echo '{"content":[{"type":"text","text":"json"}]}'\n`;
const text = (r: { content: unknown[] }) => (r.content[0] as { text: string }).text;

Deno.test("literal braces in argv name pinned files; changed, they are refused", async () => {
  await using tmp = await tempWorkspace(TOML, {
    "app/tools/{x}.sh": JSON_OUT,
    "app/tools/{y}.sh": "echo plain\n",
  });
  const env = { PATH: "/usr/bin:/bin" };
  const stateDir = `${tmp.root}/.state`;
  const ws = await loadWorkspace(tmp.root);
  await writeLockFile(ws, await buildLock(ws, { stateDir, env }));
  const reg = await Registry.open(ws, "app/review", { stateDir, env });
  try {
    const tools = reg.lock!.locked!.tools;
    assert.equal(tools.jsonish_app.programs["operand 0"]?.path, "app/tools/{x}.sh");
    assert.equal(tools.plainish_app.programs["operand 0"]?.path, "app/tools/{y}.sh");
    assert.equal(text(await reg.call("jsonish_app", {})), "json");
    assert.equal(text(await reg.call("plainish_app", {})), "plain\n");
    await Deno.writeTextFile(`${tmp.root}/app/tools/{x}.sh`, JSON_OUT.replace("json", "pwned"));
    await Deno.writeTextFile(`${tmp.root}/app/tools/{y}.sh`, "echo pwned\n");
    for (const t of ["jsonish_app", "plainish_app"]) {
      const r = await reg.call(t, {});
      assert.match(text(r), /LOCK_MISMATCH/, t);
      assert.doesNotMatch(text(r), /pwned/, t);
    }
  } finally {
    await reg.close();
  }
});
