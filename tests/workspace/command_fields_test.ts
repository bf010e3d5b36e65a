/**
 * Command tool declarations: required fields, protocol, timeout_ms, execution_paths,
 * input_schema default, unknown keys and wrong types.
 */

import assert from "node:assert/strict";
import { selectTools } from "../../lib/registry/selection.ts";
import {
  BASE_FILES,
  BASE_TOML,
  expectLoads,
  expectProblem,
  JSON_TOOL,
  problemsOf,
  toolTable,
} from "../helpers/workspace.ts";

const AT = "artifacts.app.views.agent_tools.x";

function withTool(fields: Record<string, unknown>): string {
  return BASE_TOML + toolTable("app", "x", fields);
}

// Seed: "Command fields description, protocol, command and args are required."
for (const field of ["description", "protocol", "command", "args"]) {
  Deno.test(`command field \`${field}\` missing → error at its key path with a line`, async () => {
    const toml = withTool({ ...JSON_TOOL, [field]: undefined });
    await expectProblem(toml, BASE_FILES, {
      keyPath: `${AT}.${field}`,
      message: /required/,
      line: 7, // the tool's table header: the field itself is absent
    });
  });
}

Deno.test("command with every required field loads", async () => {
  const ws = await expectLoads(withTool(JSON_TOOL));
  const x = ws.artifacts.get("app")!.agentTools.x;
  assert.equal(x.type, "command");
});

Deno.test("a present field is located on its own line", async () => {
  const toml = withTool({ ...JSON_TOOL, protocol: "xml" });
  // line 7 header, 8 description, 9 protocol
  await expectProblem(toml, BASE_FILES, { keyPath: `${AT}.protocol`, line: 9 });
});

// Seed: "Command fields ... protocol" — json or plain only.
Deno.test("protocol: json and plain load; anything else is rejected", async () => {
  await expectLoads(withTool({ ...JSON_TOOL, protocol: "json" }));
  await expectLoads(withTool({ ...JSON_TOOL, protocol: "plain", args: [] }));
  for (const bad of ["xml", "JSON", "", "stdio"]) {
    await expectProblem(withTool({ ...JSON_TOOL, protocol: bad }), BASE_FILES, {
      keyPath: `${AT}.protocol`,
      message: /"json" or "plain"/,
    });
  }
  await expectProblem(withTool({ ...JSON_TOOL, protocol: 1 }), BASE_FILES, {
    keyPath: `${AT}.protocol`,
    message: /must be a string/,
  });
});

// Seed: "input_schema defaults to {"type":"object","additionalProperties":false}
// (empty arguments only)."
Deno.test("input_schema defaults to the empty-object schema and is listed so", async () => {
  const ws = await expectLoads(withTool(JSON_TOOL));
  const listed = selectTools(ws, { eval: "app/review" }).tools.find((t) => t.name === "x_app")!;
  assert.deepEqual(listed.inputSchema, { type: "object", additionalProperties: false });
});

// Seed: "a default 120000 ms deadline (1–2147483647)"
Deno.test("timeout_ms: 1 and 2147483647 load; default 120000", async () => {
  let ws = await expectLoads(withTool(JSON_TOOL));
  let x = ws.artifacts.get("app")!.agentTools.x;
  assert.equal(x.type === "command" && x.timeoutMs, 120000);
  for (const ok of [1, 2, 2147483646, 2147483647]) {
    ws = await expectLoads(withTool({ ...JSON_TOOL, timeout_ms: ok }));
    x = ws.artifacts.get("app")!.agentTools.x;
    assert.equal(x.type === "command" && x.timeoutMs, ok);
  }
});

Deno.test("timeout_ms: 0, 2147483648, 1.5, -1 and a string are rejected", async () => {
  for (const bad of [0, -1, 2147483648, 1.5, "5"]) {
    await expectProblem(withTool({ ...JSON_TOOL, timeout_ms: bad }), BASE_FILES, {
      keyPath: `${AT}.timeout_ms`,
      message: /integer from 1 to 2147483647/,
    });
  }
});

// Seed: "Declared execution paths are up to 64 unique workspace-relative files/directories,
// resolved without symlinks or copying."
Deno.test("execution_paths: 63 and 64 load, 65 is rejected", async () => {
  const paths = (n: number) => Array.from({ length: n }, (_, i) => `app/p${i}`);
  await expectLoads(withTool({ ...JSON_TOOL, execution_paths: paths(63) }));
  await expectLoads(withTool({ ...JSON_TOOL, execution_paths: paths(64) }));
  await expectProblem(withTool({ ...JSON_TOOL, execution_paths: paths(65) }), BASE_FILES, {
    keyPath: `${AT}.execution_paths`,
    message: /65 entries; at most 64/,
  });
});

Deno.test("execution_paths: duplicates, traversal and absolute paths are rejected", async () => {
  const toml = withTool({
    ...JSON_TOOL,
    execution_paths: ["app/a", "app/a", "../outside", "/etc/passwd", "app/../x", "./app"],
  });
  const problems = await problemsOf(toml);
  const at = (i: number) => problems.find((p) => p.keyPath === `${AT}.execution_paths[${i}]`);
  assert.match(at(1)!.message, /duplicates/);
  assert.match(at(2)!.message, /`\.` or `\.\.`/);
  assert.match(at(3)!.message, /not absolute/);
  assert.match(at(4)!.message, /`\.` or `\.\.`/);
  assert.match(at(5)!.message, /`\.` or `\.\.`/);
  assert.equal(at(0), undefined);
});

Deno.test("execution_paths must be an array of strings", async () => {
  for (const bad of ["app/x", [1], [{ path: "x" }]]) {
    await expectProblem(withTool({ ...JSON_TOOL, execution_paths: bad }), BASE_FILES, {
      keyPath: `${AT}.execution_paths`,
      message: /array of strings/,
    });
  }
});

// DESIGN: "Unknown keys anywhere are errors, so a typo never silently disables a rule."
Deno.test("unknown key on a command tool → error with did-you-mean", async () => {
  await expectProblem(withTool({ ...JSON_TOOL, timeout: 5 }), BASE_FILES, {
    keyPath: `${AT}.timeout`,
    message: /unknown key \(did you mean `timeout_ms`\?\)/,
  });
  await expectProblem(withTool({ ...JSON_TOOL, input_shema: {} }), BASE_FILES, {
    keyPath: `${AT}.input_shema`,
    message: /did you mean `input_schema`/,
  });
});

Deno.test("wrong types on command fields are reported with the key path", async () => {
  const cases: [string, unknown, RegExp][] = [
    ["description", 5, /must be a string, not a number/],
    ["description", { a: 1 }, /must be a string, not a table/],
    ["command", ["sh"], /must be a string, not an array/],
    ["args", "x", /must be an array/],
    ["session", true, /must be a string, not a boolean/],
    ["input_schema", "object", /table/],
  ];
  for (const [field, value, message] of cases) {
    await expectProblem(withTool({ ...JSON_TOOL, [field]: value }), BASE_FILES, {
      keyPath: `${AT}.${field}`,
      message,
    });
  }
  await expectProblem(withTool({ ...JSON_TOOL, args: ["ok", 3] }), BASE_FILES, {
    keyPath: `${AT}.args[1]`,
    message: /string or `\{ artifact = "ID" \}`/,
  });
});

Deno.test("a tool that is not a table is rejected", async () => {
  const toml = BASE_TOML + "\n[artifacts.app.views.agent_tools]\nx = 5\n";
  await expectProblem(toml, BASE_FILES, { keyPath: AT, message: /must be a table/ });
});

// DESIGN: "a command with `/` is relative to the owner's working directory ... and must stay
// inside the workspace."
Deno.test("absolute commands are rejected", async () => {
  await expectProblem(withTool({ ...JSON_TOOL, command: "/bin/sh" }), BASE_FILES, {
    keyPath: `${AT}.command`,
  });
});

Deno.test("commands with `/` that resolve outside the workspace are rejected", async () => {
  // app/../x stays inside (the workspace root), ../../x leaves it.
  await expectLoads(withTool({ ...JSON_TOOL, command: "../x" }));
  await expectLoads(withTool({ ...JSON_TOOL, command: "tools/run" }));
  for (const bad of ["../../x", "../../../bin/sh", "sub/../../../x"]) {
    await expectProblem(withTool({ ...JSON_TOOL, command: bad }), BASE_FILES, {
      keyPath: `${AT}.command`,
      message: /outside the workspace/,
    });
  }
});

Deno.test("commands that leave the workspace through a symlink are rejected", async () => {
  // The text stays inside; the realpath does not (the command, or a folder on the way).
  const files = {
    ...BASE_FILES,
    "app/rootlink": { symlink: "/" },
    "app/tools/lnk": { symlink: "/bin/sh" },
    "app/tools/dirlink": { symlink: "/bin" },
    "app/tools/real.sh": { text: "#!/bin/sh\n", mode: 0o755 },
    "app/tools/inner": { symlink: "real.sh" },
  };
  for (const bad of ["rootlink/bin/sh", "tools/lnk", "tools/dirlink/sh"]) {
    await expectProblem(withTool({ ...JSON_TOOL, command: bad }), files, {
      keyPath: `${AT}.command`,
      message: /outside the workspace/,
    });
  }
  // A link that stays inside the workspace is fine.
  await expectLoads(withTool({ ...JSON_TOOL, command: "tools/inner" }), files);
});

Deno.test("empty command is rejected", async () => {
  await expectProblem(withTool({ ...JSON_TOOL, command: "" }), BASE_FILES, {
    keyPath: `${AT}.command`,
    message: /nonempty/,
  });
});

Deno.test("a schema `format` typo is a declaration error, not a silently dropped check", async () => {
  const schema = { type: "object", properties: { d: { type: "string", format: "dat-time" } } };
  await expectProblem(withTool({ ...JSON_TOOL, input_schema: schema }), BASE_FILES, {
    keyPath: `${AT}.input_schema`,
    message: /unknown format/,
  });
  const ok = { type: "object", properties: { d: { type: "string", format: "date-time" } } };
  await expectLoads(withTool({ ...JSON_TOOL, input_schema: ok }));
});

Deno.test("a schema `type` typo names its key and the type it likely meant, not ajv's words", async () => {
  const nested = { type: "object", properties: { d: { type: "strng", minLength: 1 } } };
  await expectProblem(withTool({ ...JSON_TOOL, input_schema: nested }), BASE_FILES, {
    keyPath: `${AT}.input_schema.properties.d.type`,
    message:
      /^`strng` is not a JSON Schema type \(did you mean `string`\?\); the types are string, /,
  });
  const deep = {
    type: "object",
    properties: {
      l: { type: "array", items: { anyOf: [{ type: "null" }, { type: ["integr"] }] } },
    },
  };
  await expectProblem(withTool({ ...JSON_TOOL, input_schema: deep }), BASE_FILES, {
    keyPath: `${AT}.input_schema.properties.l.items.anyOf[1].type`,
    message: /`integr` .* \(did you mean `integer`\?\)/,
  });
  // Any other reason a schema does not compile keeps the compiler's message.
  const other = { type: "object", properties: { d: { type: "string", minLength: "one" } } };
  await expectProblem(withTool({ ...JSON_TOOL, input_schema: other }), BASE_FILES, {
    keyPath: `${AT}.input_schema`,
    message: /the schema does not compile/,
  });
});

Deno.test("names of Object.prototype members are not built-ins or sessions", async () => {
  // They used to pass `in` checks and crash later with a TypeError.
  for (const builtin of ["toString", "constructor", "__proto__", "hasOwnProperty"]) {
    await expectProblem(withTool({ builtin }), BASE_FILES, { keyPath: `${AT}.builtin` });
  }
  await expectProblem(withTool({ ...JSON_TOOL, session: "constructor" }), BASE_FILES, {
    keyPath: `${AT}.session`,
    message: /names no session/,
  });
});
