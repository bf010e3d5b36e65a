import assert from "node:assert/strict";
import { createCallDirs } from "../../lib/process/call_dirs.ts";
import { toolEnvironment } from "../../lib/process/env.ts";
import { runBounded } from "../../lib/process/run.ts";
import { ENV, text, tool, withStateDir } from "./helpers.ts";

Deno.test("toolEnvironment strips caller ARTIFACTIZE_*/TOOLHOST_* and adds private TMP", () => {
  const env = toolEnvironment(
    {
      HOME: "/home/author",
      PATH: "/bin",
      TOOLHOST_STATE: "x",
      ARTIFACTIZE_TOKEN: "y",
      toolhost_lower: "z",
      TOOLHOSTX: "kept: no underscore",
      UNSET: undefined,
      TMPDIR: "/tmp",
    },
    { ARTIFACTIZE_SESSION_DIR: "/s", TOOLHOST_SESSION_DIR: "/s" },
    { tmpDir: "/private/tmp" },
  );
  assert.deepEqual(env, {
    HOME: "/home/author",
    PATH: "/bin",
    TOOLHOSTX: "kept: no underscore",
    TMPDIR: "/private/tmp",
    TMP: "/private/tmp",
    TEMP: "/private/tmp",
    ARTIFACTIZE_SESSION_DIR: "/s",
    TOOLHOST_SESSION_DIR: "/s",
  });
  assert.deepEqual(toolEnvironment({ A: "1" }), { A: "1" });
});

Deno.test("a tool sees the author's environment without the caller's private variables", async () => {
  await withStateDir(async (stateDir) => {
    const dirs = await createCallDirs(stateDir);
    try {
      const env = toolEnvironment(
        { ...ENV, TOOLHOST_SECRET: "s1", ARTIFACTIZE_SECRET: "s2", AUTHOR_VAR: "kept" },
        {},
        { tmpDir: dirs.tmpDir },
      );
      const r = await runBounded({ command: tool("env_dump.sh"), cwd: "/", env });
      const lines = text(r.stdout).split("\n");
      assert.ok(lines.includes("AUTHOR_VAR=kept"));
      assert.ok(lines.includes(`TMPDIR=${dirs.tmpDir}`));
      assert.ok(lines.includes(`HOME=${ENV.HOME}`));
      assert.equal(lines.some((l) => /^(TOOLHOST|ARTIFACTIZE)_/.test(l)), false);
    } finally {
      await dirs.remove();
    }
  });
});
