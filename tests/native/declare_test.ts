import assert from "node:assert/strict";
import { NATIVE_NAMES, NATIVE_SPECS } from "../../lib/native/specs.ts";
import { Registry } from "../../lib/registry/registry.ts";
import { loadWorkspace } from "../../lib/workspace/load_workspace.ts";
import {
  BASE_FILES,
  BASE_TOML,
  expectLoads,
  expectProblem,
  tempWorkspace,
} from "../helpers/workspace.ts";

const ALL = NATIVE_NAMES.map((n) => `\n[artifacts.app.views.agent_tools.${n}]\nbuiltin = "${n}"\n`)
  .join("");

Deno.test("native tools are declared like built-ins and listed as <tool>_<artifactId>", async () => {
  await expectLoads(BASE_TOML + ALL);
  const tw = await tempWorkspace(BASE_TOML + ALL, BASE_FILES);
  try {
    const reg = await Registry.open(await loadWorkspace(tw.root), "app/review", {
      stateDir: `${tw.root}/.s`,
    });
    try {
      const listed = reg.list().filter((t) => t.name.endsWith("_app"));
      assert.deepEqual(listed.map((t) => t.name), NATIVE_NAMES.map((n) => `${n}_app`));
      for (const t of listed) {
        const n = t.name.slice(0, -4) as keyof typeof NATIVE_SPECS;
        assert.deepEqual(t.inputSchema, NATIVE_SPECS[n].modelSchema);
        assert.ok(
          t.description.includes("app") || !NATIVE_SPECS[n].description.includes("{artifactName}"),
        );
      }
      const r = await reg.call("files_read_app", { path: "README.md" });
      assert.equal(r.isError, false);
    } finally {
      await reg.close();
    }
  } finally {
    await tw.cleanup();
  }
});

Deno.test("native tools take the model's input: no fixed args, no human views", async () => {
  await expectProblem(
    `${BASE_TOML}\n[artifacts.app.views.agent_tools.r]\nbuiltin = "files_read"\nargs = ["README.md"]\n`,
    BASE_FILES,
    {
      keyPath: "artifacts.app.views.agent_tools.r.args",
      message: /takes the model's input/,
    },
  );
  await expectProblem(
    `${BASE_TOML}\n[artifacts.app.views.human_tools.r]\nbuiltin = "shell_exec"\n`,
    BASE_FILES,
    {
      keyPath: "artifacts.app.views.human_tools.r.args",
    },
  );
  await expectProblem(
    `${BASE_TOML}\n[artifacts.app.views.agent_tools.r]\nbuiltin = "files_raed"\n`,
    BASE_FILES,
    {
      keyPath: "artifacts.app.views.agent_tools.r.builtin",
      message: /unknown built-in/,
    },
  );
});
