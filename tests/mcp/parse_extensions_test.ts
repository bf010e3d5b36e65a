import assert from "node:assert/strict";
import { evalExtensions, extensionsOf } from "../../lib/workspace/parse_extensions.ts";
import { BASE_FILES, expectLoads, expectProblem } from "../helpers/workspace.ts";
import { extensionToml } from "./_helpers.ts";

const EVAL_WITH = (names: string[]) =>
  `[artifacts.app]\npath = "app"\n\n[artifacts.app.evals.review]\naudience = "agent"\nextensions = ${
    JSON.stringify(names)
  }\n`;

Deno.test("extensions: a full declaration loads and the eval admits it", async () => {
  const ws = await expectLoads(
    EVAL_WITH(["fs"]) +
      extensionToml("fs", {
        command: "npx",
        args: ["-y", "pkg"],
        env: { LOG_LEVEL: "warn" },
        artifact_roots: ["out"],
        timeout_ms: 5000,
        audience: "agent",
      }),
  );
  const d = extensionsOf(ws).decls.get("fs")!;
  assert.deepEqual(
    { ...d },
    {
      name: "fs",
      command: "npx",
      args: ["-y", "pkg"],
      env: { LOG_LEVEL: "warn" },
      artifactRoots: ["out"],
      timeoutMs: 5000,
      audience: "agent",
      keyPath: "extensions.fs",
    },
  );
  assert.deepEqual(evalExtensions(ws, "app/review").map((x) => x.name), ["fs"]);
});

Deno.test("extensions: defaults, and an eval without the key admits none", async () => {
  const ws = await expectLoads(
    `[artifacts.app]\npath = "app"\n\n[artifacts.app.evals.review]\naudience = "agent"\n` +
      extensionToml("fs", { command: "npx" }),
  );
  const d = extensionsOf(ws).decls.get("fs")!;
  assert.equal(d.timeoutMs, 120000);
  assert.equal(d.audience, "agent");
  assert.deepEqual(d.args, []);
  assert.deepEqual(evalExtensions(ws, "app/review"), []);
});

Deno.test("extensions: timeout_ms boundaries 1 and 2147483647 load; 0 and 2147483648 do not", async () => {
  for (const ok of [1, 2147483647]) {
    await expectLoads(EVAL_WITH([]) + extensionToml("fs", { command: "npx", timeout_ms: ok }));
  }
  for (const bad of [0, 2147483648, 1.5]) {
    await expectProblem(
      EVAL_WITH([]) + extensionToml("fs", { command: "npx", timeout_ms: bad }),
      BASE_FILES,
      {
        keyPath: "extensions.fs.timeout_ms",
        message: /integer from 1 to 2147483647/,
      },
    );
  }
});

Deno.test("extensions: unknown keys, bad names and bad fields are declaration errors", async () => {
  await expectProblem(
    EVAL_WITH([]) + extensionToml("fs", { command: "npx", comand: "x" }),
    BASE_FILES,
    {
      keyPath: "extensions.fs.comand",
      message: /unknown key.*did you mean `command`/,
    },
  );
  await expectProblem(EVAL_WITH([]) + extensionToml("fs", { args: [] }), BASE_FILES, {
    keyPath: "extensions.fs.command",
    message: /required/,
  });
  await expectProblem(EVAL_WITH([]) + `\n[extensions.Bad]\ncommand = "x"\n`, BASE_FILES, {
    keyPath: "extensions.Bad",
    message: /extension names must match/,
  });
  await expectProblem(
    EVAL_WITH([]) + extensionToml("fs", { command: "../outside/bin" }),
    BASE_FILES,
    {
      keyPath: "extensions.fs.command",
      message: /outside the workspace/,
    },
  );
  await expectProblem(
    EVAL_WITH([]) + extensionToml("fs", { command: "x", env: { "1BAD": "v" } }),
    BASE_FILES,
    {
      keyPath: "extensions.fs.env.1BAD",
    },
  );
  await expectProblem(
    EVAL_WITH([]) + extensionToml("fs", { command: "x", env: { A: 1 } }),
    BASE_FILES,
    {
      keyPath: "extensions.fs.env.A",
      message: /must be a string/,
    },
  );
  await expectProblem(
    EVAL_WITH([]) + extensionToml("fs", { command: "x", audience: "robot" }),
    BASE_FILES,
    {
      keyPath: "extensions.fs.audience",
    },
  );
  await expectProblem(
    EVAL_WITH([]) + extensionToml("fs", { command: "x", artifact_roots: ["../up"] }),
    BASE_FILES,
    {
      keyPath: "extensions.fs.artifact_roots[0]",
    },
  );
  await expectProblem(EVAL_WITH([]) + extensionToml("app", { command: "x" }), BASE_FILES, {
    keyPath: "extensions.app",
    message: /also an Artifact id/,
  });
});

Deno.test("extensions: an eval naming an unknown, duplicate or wrong-audience extension is refused", async () => {
  await expectProblem(EVAL_WITH(["nope"]) + extensionToml("fs", { command: "x" }), BASE_FILES, {
    keyPath: "artifacts.app.evals.review.extensions[0]",
    message: /names no extension `nope`/,
  });
  await expectProblem(EVAL_WITH(["fs", "fs"]) + extensionToml("fs", { command: "x" }), BASE_FILES, {
    keyPath: "artifacts.app.evals.review.extensions[1]",
    message: /twice/,
  });
  await expectProblem(
    EVAL_WITH(["fs"]) + extensionToml("fs", { command: "x", audience: "human" }),
    BASE_FILES,
    { keyPath: "artifacts.app.evals.review.extensions[0]", message: /serves human evals/ },
  );
  await expectProblem(
    `[artifacts.app]\npath = "app"\n\n[artifacts.app.evals.review]\naudience = "agent"\nextensions = "fs"\n` +
      extensionToml("fs", { command: "x" }),
    BASE_FILES,
    { keyPath: "artifacts.app.evals.review.extensions" },
  );
});

Deno.test("extensions: a top-level typo is still an unknown key", async () => {
  await expectProblem(EVAL_WITH([]) + `\n[extension.fs]\ncommand = "x"\n`, BASE_FILES, {
    keyPath: "extension",
    message: /did you mean `extensions`/,
  });
});

Deno.test("extensions: an artifact root that links out of the workspace is refused", async () => {
  const toml = EVAL_WITH(["fx"]) + extensionToml("fx", { command: "srv", artifact_roots: ["out"] });
  await expectProblem(toml, { ...BASE_FILES, out: { symlink: "/tmp" } }, {
    keyPath: "extensions.fx.artifact_roots[0]",
    message: /outside the workspace/,
  });
  await expectLoads(toml, { ...BASE_FILES, "real/x": "x", out: { symlink: "real" } });
});
