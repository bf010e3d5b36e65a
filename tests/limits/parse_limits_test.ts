/**
 * Declarations of `max_memory_mb`, `max_cpu_seconds`, `max_processes` (command tools,
 * sessions, extensions) and `overflow` (plain tools, extensions): every bound at, below
 * and above, wrong types, and key-path errors.
 */

import assert from "node:assert/strict";
import { LIMIT_KEYS } from "../../lib/limits/types.ts";
import { extensionsOf } from "../../lib/workspace/parse_extensions.ts";
import {
  BASE_FILES,
  BASE_TOML,
  expectLoads,
  expectProblem,
  JSON_TOOL,
  toolTable,
} from "../helpers/workspace.ts";

const AT = "artifacts.app.views.agent_tools.x";
const PLAIN_TOOL = { ...JSON_TOOL, protocol: "plain", args: ["hi"], command: "echo" };

function withTool(fields: Record<string, unknown>): string {
  return BASE_TOML + toolTable("app", "x", fields);
}

const SESSION = `
[artifacts.app.views.agent_sessions.s]
start = { command = "sh", args = ["-c", "echo ready; sleep 60"] }
stop = { command = "sh", args = ["-c", "true"] }
`;

function extension(extra: string): string {
  return `[artifacts.app]\npath = "app"\n\n[artifacts.app.evals.review]\naudience = "agent"\n` +
    `extensions = ["fx"]\n\n[extensions.fx]\ncommand = "true"\n${extra}`;
}

for (const k of LIMIT_KEYS) {
  Deno.test(`${k.key}: ${k.min} and ${k.max} load on a tool, a session and an extension`, async () => {
    for (const v of [k.min, k.max]) {
      const ws = await expectLoads(withTool({ ...JSON_TOOL, [k.key]: v }));
      const decl = ws.artifacts.get("app")!.agentTools.x;
      assert.equal(decl.type === "command" && decl.limits?.[k.field], v);
      const ws2 = await expectLoads(
        BASE_TOML +
          SESSION.replace(
            "[artifacts.app.views.agent_sessions.s]",
            `[artifacts.app.views.agent_sessions.s]\n${k.key} = ${v}`,
          ),
      );
      assert.equal(ws2.artifacts.get("app")!.sessions.s.limits?.[k.field], v);
      const ws3 = await expectLoads(extension(`${k.key} = ${v}\n`));
      assert.equal(extensionsOf(ws3).decls.get("fx")!.limits?.[k.field], v);
    }
  });

  Deno.test(`${k.key}: ${k.min - 1}, ${k.max + 1}, 1.5 and "8" are errors at the key path`, async () => {
    for (const bad of [k.min - 1, k.max + 1, 1.5, '"8"']) {
      await expectProblem(
        withTool({ ...JSON_TOOL, [k.key]: bad === '"8"' ? "8" : bad }),
        BASE_FILES,
        {
          keyPath: `${AT}.${k.key}`,
          message: new RegExp(`integer from ${k.min} to ${k.max}`),
        },
      );
    }
    const session = BASE_TOML + SESSION.replace(
      "[artifacts.app.views.agent_sessions.s]",
      `[artifacts.app.views.agent_sessions.s]\n${k.key} = ${k.max + 1}`,
    );
    await expectProblem(session, BASE_FILES, {
      keyPath: `artifacts.app.views.agent_sessions.s.${k.key}`,
      message: /integer from/,
    });
    await expectProblem(extension(`${k.key} = 0\n`), BASE_FILES, {
      keyPath: `extensions.fx.${k.key}`,
      message: /integer from/,
    });
  });
}

Deno.test("no limits declared → no limits field (unlimited)", async () => {
  const ws = await expectLoads(withTool(JSON_TOOL));
  const decl = ws.artifacts.get("app")!.agentTools.x;
  assert.equal(decl.type === "command" && decl.limits, undefined);
});

Deno.test("limits are unknown keys on built-ins and session commands", async () => {
  await expectProblem(
    BASE_TOML + toolTable("app", "x", { builtin: "read", max_processes: 4 }),
    BASE_FILES,
    {
      keyPath: `${AT}.max_processes`,
      message: /unknown key/,
    },
  );
  const inCommand = BASE_TOML +
    SESSION.replace('args = ["-c", "true"] }', 'args = ["-c", "true"], max_processes = 4 }');
  await expectProblem(inCommand, BASE_FILES, {
    keyPath: "artifacts.app.views.agent_sessions.s.stop.max_processes",
    message: /unknown key/,
  });
});

Deno.test("overflow: truncate/artifact on plain tools; default truncate; refused on json tools", async () => {
  for (const v of ["truncate", "artifact"]) {
    const ws = await expectLoads(withTool({ ...PLAIN_TOOL, overflow: v }));
    const d = ws.artifacts.get("app")!.agentTools.x;
    assert.equal(d.type === "command" && d.overflow, v);
  }
  const ws = await expectLoads(withTool(PLAIN_TOOL));
  const d = ws.artifacts.get("app")!.agentTools.x;
  assert.equal(d.type === "command" && d.overflow, undefined); // truncate, the seed's rule
  await expectProblem(withTool({ ...PLAIN_TOOL, overflow: "spill" }), BASE_FILES, {
    keyPath: `${AT}.overflow`,
    message: /"truncate" or "artifact"/,
  });
  await expectProblem(withTool({ ...JSON_TOOL, overflow: "artifact" }), BASE_FILES, {
    keyPath: `${AT}.overflow`,
    message: /only to plain-protocol tools/,
  });
});

Deno.test("overflow on extensions: default artifact (absent), truncate accepted, others refused", async () => {
  const ws = await expectLoads(extension(""));
  assert.equal(extensionsOf(ws).decls.get("fx")!.overflow, undefined);
  const t = await expectLoads(extension('overflow = "truncate"\n'));
  assert.equal(extensionsOf(t).decls.get("fx")!.overflow, "truncate");
  await expectProblem(extension("overflow = 1\n"), BASE_FILES, {
    keyPath: "extensions.fx.overflow",
    message: /"truncate" or "artifact"/,
  });
});
