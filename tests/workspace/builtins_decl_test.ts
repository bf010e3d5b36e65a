/**
 * Built-in tool declarations: only `builtin`, `args`, `description`; per-built-in `args`
 * rules; no `session`.
 */

import assert from "node:assert/strict";
import { selectTools } from "../../lib/registry/selection.ts";
import {
  BASE_FILES,
  BASE_TOML,
  expectLoads,
  expectProblem,
  toolTable,
} from "../helpers/workspace.ts";

const AT = "artifacts.app.views.agent_tools.x";

function withBuiltin(fields: Record<string, unknown>): string {
  return BASE_TOML + toolTable("app", "x", fields);
}

async function ok(fields: Record<string, unknown>): Promise<void> {
  await expectLoads(withBuiltin(fields));
}

async function bad(fields: Record<string, unknown>, message?: RegExp): Promise<void> {
  await expectProblem(withBuiltin(fields), BASE_FILES, { keyPath: `${AT}.args`, message });
}

// Seed: "Built-in references take builtin, optional args and optional description."
Deno.test("built-ins accept builtin, args and description only", async () => {
  await ok({ builtin: "read", args: ["README.md"], description: "Read it." });
  for (const extra of ["protocol", "command", "input_schema", "timeout_ms", "execution_paths"]) {
    await expectProblem(withBuiltin({ builtin: "read", [extra]: "x" }), BASE_FILES, {
      keyPath: `${AT}.${extra}`,
      message: /unknown key; allowed keys: builtin, args, description/,
    });
  }
});

Deno.test("unknown built-in names are rejected", async () => {
  await expectProblem(withBuiltin({ builtin: "cat" }), BASE_FILES, {
    keyPath: `${AT}.builtin`,
    message: /unknown built-in; choose one of read, list, glob, grep, view_image/,
  });
  await expectProblem(withBuiltin({ builtin: 3 }), BASE_FILES, {
    keyPath: `${AT}.builtin`,
    message: /must be a string/,
  });
});

// Seed: "Without args, read, list, glob, grep and view_image take the model's input below;
// with args, read, list, section and help work on a fixed target, and graph with args = []
// prints the entire current project structure"
Deno.test("read and list: no args (model input), or exactly 1 fixed target", async () => {
  for (const builtin of ["read", "list"]) {
    await ok({ builtin });
    await ok({ builtin, args: ["README.md"] });
    await bad({ builtin, args: [] }, /1 entries, not 0/);
    await bad({ builtin, args: ["a", "b"] }, /1 entries, not 2/);
  }
});

Deno.test("glob, grep, view_image take no args at all", async () => {
  for (const builtin of ["glob", "grep", "view_image"]) {
    await ok({ builtin });
    await bad({ builtin, args: [] }, /no fixed `args`/);
    await bad({ builtin, args: ["x"] }, /no fixed `args`/);
  }
});

Deno.test("section takes exactly 2 args", async () => {
  await ok({ builtin: "section", args: ["README.md", "Intro"] });
  await bad({ builtin: "section" }, /required/);
  await bad({ builtin: "section", args: ["README.md"] }, /2 entries, not 1/);
  await bad({ builtin: "section", args: ["README.md", "Intro", "x"] }, /2 entries, not 3/);
});

Deno.test("help takes exactly 1 arg", async () => {
  await ok({ builtin: "help", args: ["tools/run"] });
  await bad({ builtin: "help" }, /required/);
  await bad({ builtin: "help", args: [] }, /1 entries, not 0/);
  await bad({ builtin: "help", args: ["a", "b"] }, /1 entries, not 2/);
});

Deno.test("graph takes exactly args = []", async () => {
  await ok({ builtin: "graph", args: [] });
  await bad({ builtin: "graph" }, /exactly `\[\]`/);
  await bad({ builtin: "graph", args: ["x"] }, /exactly `\[\]`/);
});

Deno.test("built-in args must be an array of strings", async () => {
  await bad({ builtin: "read", args: "README.md" }, /array of strings/);
  await bad({ builtin: "read", args: [1] }, /array of strings/);
});

Deno.test("a fixed target publishes the empty-object schema; model input its own", async () => {
  const ws = await expectLoads(
    BASE_TOML + toolTable("app", "fixed", { builtin: "read", args: ["README.md"] }) +
      toolTable("app", "free", { builtin: "read" }),
  );
  const tools = selectTools(ws, { eval: "app/review" }).tools;
  const fixed = tools.find((t) => t.name === "fixed_app")!;
  const free = tools.find((t) => t.name === "free_app")!;
  assert.deepEqual(fixed.inputSchema, { type: "object", additionalProperties: false });
  assert.deepEqual(free.inputSchema.required, ["path"]);
});

// Seed: "A command tool’s session must name a session in its own Artifact; built-in and
// Human tools do not accept it."
Deno.test("session on a built-in is rejected", async () => {
  await expectProblem(withBuiltin({ builtin: "read", session: "s" }), BASE_FILES, {
    keyPath: `${AT}.session`,
    message: /built-in tools cannot be bound to a session/,
  });
});
