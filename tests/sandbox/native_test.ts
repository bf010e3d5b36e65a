/**
 * `shell_exec` and the git tools run confined when their declaration is: the command a
 * model writes cannot read another Artifact, while the same declaration unconfined can.
 * The confinement keys on any other built-in are a declaration error.
 */

import assert from "node:assert/strict";
import { loadWorkspace } from "../../lib/workspace/load_workspace.ts";
import { Registry } from "../../lib/registry/registry.ts";
import { BASE_FILES, BASE_TOML, expectProblem, tempWorkspace } from "../helpers/workspace.ts";
import { printSkip, skipReason } from "./_corpus.ts";

function manifest(sandbox: string): string {
  return `[artifacts.app]
path = "app"

[artifacts.other]
path = "other"

[artifacts.app.evals.review]
audience = "agent"

[artifacts.app.views.agent_tools.sh]
builtin = "shell_exec"
sandbox = "${sandbox}"
`;
}

function text(r: { content: { type: string; text?: string; data?: unknown }[] }): string {
  return JSON.stringify(r.content);
}

Deno.test("shell_exec runs confined when its declaration is", async () => {
  const skip = skipReason();
  if (skip) return printSkip("shell_exec confined", skip);
  for (const [sandbox, readable] of [["read", false], ["host", true]] as const) {
    await using ws = await tempWorkspace(manifest(sandbox), {
      "app/README.md": "# app\n",
      "other/secret.txt": "SECRET-OTHER\n",
    });
    const reg = await Registry.open(await loadWorkspace(ws.root), "app/review", {
      env: { PATH: "/usr/bin:/bin" },
    });
    try {
      const r = await reg.call("sh_app", {
        command: `cat ${ws.root}/other/secret.txt; cat README.md`,
      });
      assert.equal(text(r).includes("SECRET-OTHER"), readable, text(r));
      assert.match(text(r), /# app/); // its own Artifact stays readable
    } finally {
      await reg.close();
    }
  }
});

Deno.test("confinement keys on a built-in that starts no process are a declaration error", async () => {
  await expectProblem(
    `${BASE_TOML}\n[artifacts.app.views.agent_tools.r]\nbuiltin = "read"\nsandbox = "read"\n`,
    BASE_FILES,
    { keyPath: "artifacts.app.views.agent_tools.r.sandbox", message: /start processes/ },
  );
});
