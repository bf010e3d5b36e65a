/**
 * Tool session declarations and session bindings.
 */

import assert from "node:assert/strict";
import {
  BASE_FILES,
  BASE_TOML,
  expectLoads,
  expectProblem,
  JSON_TOOL,
  tomlValue,
  toolTable,
} from "../helpers/workspace.ts";

const SESSION_AT = "artifacts.app.views.agent_sessions.s";
const START = { command: "tools/harness", args: ["start"] };
const STOP = { command: "tools/harness", args: ["stop"] };

function session(
  start: Record<string, unknown> | undefined,
  stop: Record<string, unknown> | undefined,
  artifact = "app",
  name = "s",
): string {
  const lines = [`\n[artifacts.${artifact}.views.agent_sessions.${name}]`];
  if (start) lines.push(`start = ${tomlValue(start)}`);
  if (stop) lines.push(`stop = ${tomlValue(stop)}`);
  return `${lines.join("\n")}\n`;
}

// Seed: "start and stop require command and args; their only optional field is
// execution_paths. ... They do not take description, protocol, timeout_ms or concurrency
// options."
Deno.test("a session with start/stop command+args (and execution_paths) loads", async () => {
  const ws = await expectLoads(
    BASE_TOML + session({ ...START, execution_paths: ["app/README.md"] }, STOP),
  );
  const s = ws.artifacts.get("app")!.sessions.s;
  assert.deepEqual(s.start.args, ["start"]);
  assert.deepEqual(s.start.executionPaths, ["app/README.md"]);
  assert.deepEqual(s.stop.executionPaths, []);
});

for (const which of ["start", "stop"] as const) {
  Deno.test(`session ${which}: command and args are required`, async () => {
    for (const missing of ["command", "args"]) {
      const cmd: Record<string, unknown> = { ...(which === "start" ? START : STOP) };
      delete cmd[missing];
      const toml = BASE_TOML +
        session(which === "start" ? cmd : START, which === "stop" ? cmd : STOP);
      await expectProblem(toml, BASE_FILES, {
        keyPath: `${SESSION_AT}.${which}.${missing}`,
        message: /required/,
      });
    }
  });

  Deno.test(`session ${which}: description, protocol, timeout_ms are rejected`, async () => {
    for (const extra of ["description", "protocol", "timeout_ms", "concurrency", "session"]) {
      const cmd = {
        ...(which === "start" ? START : STOP),
        [extra]: extra === "timeout_ms" ? 5 : "x",
      };
      const toml = BASE_TOML +
        session(which === "start" ? cmd : START, which === "stop" ? cmd : STOP);
      await expectProblem(toml, BASE_FILES, {
        keyPath: `${SESSION_AT}.${which}.${extra}`,
        message: /unknown key; allowed keys: command, args, execution_paths/,
      });
    }
  });

  Deno.test(`session ${which} is required`, async () => {
    const toml = BASE_TOML +
      session(which === "start" ? undefined : START, which === "stop" ? undefined : STOP);
    await expectProblem(toml, BASE_FILES, {
      keyPath: `${SESSION_AT}.${which}`,
      message: /required/,
    });
  });
}

Deno.test("session: unknown keys and execution_paths limits", async () => {
  await expectProblem(
    BASE_TOML + session(START, STOP) + 'restart = { command = "x", args = [] }\n',
    BASE_FILES,
    { keyPath: `${SESSION_AT}.restart`, message: /unknown key \(did you mean `start`\?\)/ },
  );
  const paths = (n: number) => Array.from({ length: n }, (_, i) => `app/p${i}`);
  await expectLoads(BASE_TOML + session({ ...START, execution_paths: paths(64) }, STOP));
  await expectProblem(
    BASE_TOML + session({ ...START, execution_paths: paths(65) }, STOP),
    BASE_FILES,
    { keyPath: `${SESSION_AT}.start.execution_paths`, message: /at most 64/ },
  );
  await expectProblem(
    BASE_TOML + session(START, { ...STOP, execution_paths: ["../x"] }),
    BASE_FILES,
    { keyPath: `${SESSION_AT}.stop.execution_paths[0]`, message: /`\.\.`/ },
  );
});

Deno.test("session commands: absolute or escaping commands are rejected", async () => {
  await expectProblem(BASE_TOML + session({ ...START, command: "/bin/sh" }, STOP), BASE_FILES, {
    keyPath: `${SESSION_AT}.start.command`,
  });
  await expectProblem(BASE_TOML + session(START, { ...STOP, command: "../../x" }), BASE_FILES, {
    keyPath: `${SESSION_AT}.stop.command`,
    message: /outside the workspace/,
  });
});

// Seed: "A command tool’s session must name a session in its own Artifact; built-in and
// Human tools do not accept it."
Deno.test("a command tool may bind a session of its own Artifact", async () => {
  const ws = await expectLoads(
    BASE_TOML + session(START, STOP) + toolTable("app", "click", { ...JSON_TOOL, session: "s" }),
  );
  const t = ws.artifacts.get("app")!.agentTools.click;
  assert.equal(t.type === "command" && t.session, "s");
});

Deno.test("a session that names no session of the same Artifact is rejected", async () => {
  const files = { ...BASE_FILES, "other/x.md": "" };
  const toml = BASE_TOML + '\n[artifacts.other]\npath = "other"\n' +
    session(START, STOP, "other") +
    toolTable("app", "click", { ...JSON_TOOL, session: "s" });
  await expectProblem(toml, files, {
    keyPath: "artifacts.app.views.agent_tools.click.session",
    message: /names no session of Artifact `app`/,
  });
  await expectProblem(
    BASE_TOML + toolTable("app", "click", { ...JSON_TOOL, session: "nope" }),
    BASE_FILES,
    { keyPath: "artifacts.app.views.agent_tools.click.session" },
  );
});

Deno.test("a misspelt session names the one it likely meant, or how to declare one", async () => {
  await expectProblem(
    BASE_TOML + session(START, STOP, "app", "notes") +
      toolTable("app", "click", { ...JSON_TOOL, session: "nots" }),
    BASE_FILES,
    {
      keyPath: "artifacts.app.views.agent_tools.click.session",
      message:
        /^names no session of Artifact `app` \(did you mean `notes`\?\); its sessions: notes$/,
    },
  );
  await expectProblem(
    BASE_TOML + toolTable("app", "click", { ...JSON_TOOL, session: "nope" }),
    BASE_FILES,
    {
      keyPath: "artifacts.app.views.agent_tools.click.session",
      message: /; it declares none \(`\[artifacts\.app\.views\.agent_sessions\.NAME\]`\)$/,
    },
  );
});

Deno.test("session on a human tool is rejected", async () => {
  const toml = BASE_TOML + session(START, STOP) +
    toolTable("app", "inspect", { ...JSON_TOOL, session: "s" }, "human_tools");
  await expectProblem(toml, BASE_FILES, {
    keyPath: "artifacts.app.views.human_tools.inspect.session",
    message: /human tools cannot be bound to a session/,
  });
});

// DESIGN: "`<tool>_<artifactId>` and `<session>_<artifactId>.start` can collide across
// Artifacts; collisions are declaration errors."
Deno.test("session provenance-name collision names both key paths", async () => {
  const files = { "c/x": "", "bc/x": "" };
  const toml = '[artifacts.c]\npath = "c"\n[artifacts.b_c]\npath = "bc"\n' +
    session(START, STOP, "c", "a_b") + session(START, STOP, "b_c", "a");
  const problems = await expectProblem(toml, files, {
    keyPath: "artifacts.b_c.views.agent_sessions.a",
    message: /collides with artifacts\.c\.views\.agent_sessions\.a_b/,
  });
  assert.equal(problems.length, 1);
  // One character different: no collision.
  await expectLoads(
    '[artifacts.c]\npath = "c"\n[artifacts.b_c]\npath = "bc"\n' +
      session(START, STOP, "c", "a_b") + session(START, STOP, "b_c", "b"),
    files,
  );
});

Deno.test("session names follow the name rule", async () => {
  await expectProblem(BASE_TOML + session(START, STOP, "app", "S"), BASE_FILES, {
    keyPath: "artifacts.app.views.agent_sessions.S",
    message: /\[a-z0-9\]\[a-z0-9_-\]\*/,
  });
});
