/**
 * Names of Artifacts, evals, tools and sessions, and published-name collisions.
 */

import assert from "node:assert/strict";
import { selectTools } from "../../lib/registry/selection.ts";
import {
  BASE_FILES,
  BASE_TOML,
  expectLoads,
  expectProblem,
  JSON_TOOL,
  toolTable,
} from "../helpers/workspace.ts";

const NAME_RULE = /\[a-z0-9\]\[a-z0-9_-\]\* and be at most 64 characters/;
const n64 = "a".repeat(64);
const n65 = "a".repeat(65);

// DESIGN: "Artifact IDs, tool names and session names: `[a-z0-9][a-z0-9_-]*`, at most 64
// characters."
Deno.test("tool names: 63 and 64 characters load, 65 is rejected", async () => {
  for (const name of ["a".repeat(63), n64, "0", "a_b-c9"]) {
    const ws = await expectLoads(BASE_TOML + toolTable("app", name, { builtin: "read" }));
    assert.ok(ws.artifacts.get("app")!.agentTools[name]);
  }
  await expectProblem(BASE_TOML + toolTable("app", n65, { builtin: "read" }), BASE_FILES, {
    keyPath: `artifacts.app.views.agent_tools.${n65}`,
    message: NAME_RULE,
  });
});

Deno.test("tool names: uppercase, leading _ or -, and other characters are rejected", async () => {
  for (const bad of ["Read", "_read", "-read", "re.ad", "ré", "re ad"]) {
    const toml = BASE_TOML + `\n[artifacts.app.views.agent_tools.${JSON.stringify(bad)}]\n` +
      'builtin = "read"\n';
    await expectProblem(toml, BASE_FILES, {
      keyPath: `artifacts.app.views.agent_tools.${bad}`,
      message: NAME_RULE,
    });
  }
});

Deno.test("Artifact IDs: 64 characters load, 65 and uppercase are rejected", async () => {
  await expectLoads(`[artifacts.${n64}]\npath = "app"\n`);
  for (const bad of [n65, "App", "_app"]) {
    await expectProblem(`[artifacts.${bad}]\npath = "app"\n`, BASE_FILES, {
      keyPath: `artifacts.${bad}`,
      message: NAME_RULE,
      line: 1,
    });
  }
});

Deno.test("eval names: 64 characters load, 65 and uppercase are rejected", async () => {
  const toml = (name: string) =>
    `[artifacts.app]\npath = "app"\n[artifacts.app.evals.${name}]\naudience = "agent"\n`;
  const ws = await expectLoads(toml(n64));
  assert.ok(ws.evals.has(`app/${n64}`));
  for (const bad of [n65, "Review"]) {
    await expectProblem(toml(bad), BASE_FILES, {
      keyPath: `artifacts.app.evals.${bad}`,
      message: NAME_RULE,
    });
  }
});

Deno.test("session names: 64 characters load, 65 is rejected", async () => {
  const toml = (name: string) =>
    `${BASE_TOML}[artifacts.app.views.agent_sessions.${name}]\n` +
    'start = { command = "sh", args = [] }\nstop = { command = "sh", args = [] }\n';
  await expectLoads(toml(n64));
  await expectProblem(toml(n65), BASE_FILES, {
    keyPath: `artifacts.app.views.agent_sessions.${n65}`,
    message: NAME_RULE,
  });
});

// Seed: "tool-name and session-provenance-name concatenation collisions are rejected."
Deno.test("tool a_b on Artifact c vs tool a on Artifact b_c: both publish a_b_c", async () => {
  const files = { "c/x": "", "bc/x": "" };
  const toml = '[artifacts.c]\npath = "c"\n\n[artifacts.b_c]\npath = "bc"\n' +
    toolTable("c", "a_b", JSON_TOOL) + toolTable("b_c", "a", JSON_TOOL);
  const problems = await expectProblem(toml, files, {
    keyPath: "artifacts.b_c.views.agent_tools.a",
    message: /`a_b_c`.*artifacts\.c\.views\.agent_tools\.a_b/,
  });
  assert.equal(problems.length, 1);
  // a built-in collides just as well
  await expectProblem(
    '[artifacts.c]\npath = "c"\n\n[artifacts.b_c]\npath = "bc"\n' +
      toolTable("c", "a_b", { builtin: "read" }) + toolTable("b_c", "a", { builtin: "list" }),
    files,
    { keyPath: "artifacts.b_c.views.agent_tools.a", message: /a_b_c/ },
  );
});

Deno.test("no collision when the concatenations differ", async () => {
  const files = { "c/x": "", "bc/x": "" };
  const toml = '[artifacts.c]\npath = "c"\n[artifacts.b_c]\npath = "bc"\n' +
    '[artifacts.c.evals.e]\naudience = "agent"\nreferences = ["b_c"]\n' +
    toolTable("c", "a_b", JSON_TOOL) + toolTable("b_c", "b", JSON_TOOL);
  const ws = await expectLoads(toml, files);
  const names = selectTools(ws, { eval: "c/e" }).tools.map((t) => t.name);
  assert.deepEqual(names, ["a_b_c", "b_b_c"]);
});

Deno.test("agent and human views do not collide with each other", async () => {
  await expectLoads(
    BASE_TOML + toolTable("app", "x", { builtin: "read", args: ["README.md"] }) +
      toolTable("app", "x", { builtin: "read", args: ["README.md"] }, "human_tools"),
  );
});

Deno.test("names toolhost reserves cannot be published", async () => {
  const toml = '[artifacts.field]\npath = "app"\n' +
    toolTable("field", "get_artifact", { builtin: "read" });
  await expectProblem(toml, BASE_FILES, {
    keyPath: "artifacts.field.views.agent_tools.get_artifact",
    message: /reserves/,
  });
});
