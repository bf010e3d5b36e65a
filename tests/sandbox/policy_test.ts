/**
 * The confinement keys in the manifest: validated like every other key (key path + line,
 * did-you-mean), the workspace default applied to every process-starting declaration,
 * and nothing added at all when the manifest never mentions confinement.
 */

import assert from "node:assert/strict";
import {
  BASE_FILES,
  BASE_TOML,
  expectLoads,
  expectProblem,
  JSON_TOOL,
  toolTable,
} from "../helpers/workspace.ts";
import type { CommandToolDecl } from "../../lib/workspace/types.ts";
import { extensionsOf } from "../../lib/workspace/parse_extensions.ts";
import { pluginsOf } from "../../lib/workspace/parse_plugins.ts";

const SESSION = `
[artifacts.app.views.agent_sessions.s]
start = { command = "sh", args = ["-c", "true"] }
stop = { command = "sh", args = ["-c", "true"] }
`;

function tool(ws: Awaited<ReturnType<typeof expectLoads>>, name = "t"): CommandToolDecl {
  return ws.artifacts.get("app")!.agentTools[name] as CommandToolDecl;
}

Deno.test("no sandbox key anywhere: declarations carry no policy (host, the seed's contract)", async () => {
  const ws = await expectLoads(BASE_TOML + toolTable("app", "t", JSON_TOOL) + SESSION);
  assert.equal(tool(ws).sandbox, undefined);
  assert.equal(ws.artifacts.get("app")!.sessions.s.sandbox, undefined);
});

Deno.test("a tool's own keys: mode, network, extra paths", async () => {
  const ws = await expectLoads(
    BASE_TOML + toolTable("app", "t", {
      ...JSON_TOOL,
      sandbox: "write",
      network: true,
      sandbox_read: ["/opt/toolchain", "vendor"],
      sandbox_write: ["out"],
    }),
  );
  assert.deepEqual(tool(ws).sandbox, {
    mode: "write",
    network: true,
    read: ["/opt/toolchain", "vendor"],
    write: ["out"],
  });
});

Deno.test("[sandbox] default applies to tools, sessions, extensions and hooks; own keys win", async () => {
  const toml = `[sandbox]\ndefault = "read"\n\n${BASE_TOML}` +
    toolTable("app", "t", JSON_TOOL) +
    toolTable("app", "u", { ...JSON_TOOL, sandbox: "none" }) +
    toolTable("app", "h", { ...JSON_TOOL, sandbox: "host" }) + SESSION +
    `\n[extensions.fs]\ncommand = "sh"\nnetwork = true\n` +
    `\n[[hooks.before_call]]\ncommand = "sh"\nsandbox = "none"\n`;
  const ws = await expectLoads(toml);
  assert.deepEqual(tool(ws).sandbox, { mode: "read", network: false, read: [], write: [] });
  assert.equal(tool(ws, "u").sandbox?.mode, "none");
  assert.equal(tool(ws, "h").sandbox?.mode, "host");
  assert.equal(ws.artifacts.get("app")!.sessions.s.sandbox?.mode, "read");
  assert.deepEqual(extensionsOf(ws).decls.get("fs")!.sandbox, {
    mode: "read",
    network: true,
    read: [],
    write: [],
  });
  assert.equal(pluginsOf(ws).hooks[0].sandbox?.mode, "none");
});

Deno.test("[sandbox] network = true is the default network of confined declarations", async () => {
  const toml = `[sandbox]\ndefault = "none"\nnetwork = true\n\n${BASE_TOML}` +
    toolTable("app", "t", JSON_TOOL) + toolTable("app", "u", { ...JSON_TOOL, network: false });
  const ws = await expectLoads(toml);
  assert.equal(tool(ws).sandbox?.network, true);
  assert.equal(tool(ws, "u").sandbox?.network, false);
});

Deno.test("bad values are problems at their key path, with a line", async () => {
  const at = "artifacts.app.views.agent_tools.t";
  await expectProblem(
    BASE_TOML + toolTable("app", "t", { ...JSON_TOOL, sandbox: "rw" }),
    BASE_FILES,
    {
      keyPath: `${at}.sandbox`,
      message: /"none", "read", "write" or "host"/,
    },
  );
  await expectProblem(
    BASE_TOML + toolTable("app", "t", { ...JSON_TOOL, network: "yes" }),
    BASE_FILES,
    {
      keyPath: `${at}.network`,
      message: /true or false/,
    },
  );
  await expectProblem(
    BASE_TOML + toolTable("app", "t", { ...JSON_TOOL, sandbox: "read", sandbox_read: ["../up"] }),
    BASE_FILES,
    { keyPath: `${at}.sandbox_read[0]`, message: /workspace-relative or absolute/ },
  );
  await expectProblem(
    BASE_TOML + toolTable("app", "t", { ...JSON_TOOL, sandbox: "read", sandbox_write: ["/"] }),
    BASE_FILES,
    { keyPath: `${at}.sandbox_write[0]` },
  );
  // Live trees: a bind there is not read-only (/proc/<pid>/root, sockets, devices).
  for (const live of ["/proc", "/proc/1/root", "/sys/fs", "/dev/sda", "/run/dbus"]) {
    await expectProblem(
      BASE_TOML + toolTable("app", "t", { ...JSON_TOOL, sandbox: "read", sandbox_read: [live] }),
      BASE_FILES,
      { keyPath: `${at}.sandbox_read[0]`, message: /must not be in `\/(proc|sys|dev|run)`/ },
    );
  }
  await expectProblem(`[sandbox]\ndefault = "sandboxed"\n\n${BASE_TOML}`, BASE_FILES, {
    keyPath: "sandbox.default",
  });
});

Deno.test("a misspelt key is an unknown key (never a silently missing rule)", async () => {
  const problems = await expectProblem(
    BASE_TOML + toolTable("app", "t", { ...JSON_TOOL, sandbx: "read" }),
    BASE_FILES,
    { keyPath: "artifacts.app.views.agent_tools.t.sandbx" },
  );
  assert.match(problems.map((p) => p.message).join("\n"), /sandbox/);
  await expectProblem(`[sandbox]\ndefualt = "read"\n\n${BASE_TOML}`, BASE_FILES, {
    keyPath: "sandbox.defualt",
  });
  await expectProblem(
    BASE_TOML +
      SESSION.replace(
        "[artifacts.app.views.agent_sessions.s]",
        "[artifacts.app.views.agent_sessions.s]\nnetwrok = true",
      ),
    BASE_FILES,
    {
      keyPath: "artifacts.app.views.agent_sessions.s.netwrok",
    },
  );
});

Deno.test("network or extra paths on an unconfined declaration are problems (they would do nothing)", async () => {
  await expectProblem(
    BASE_TOML + toolTable("app", "t", { ...JSON_TOOL, network: false }),
    BASE_FILES,
    { keyPath: "artifacts.app.views.agent_tools.t.network", message: /unconfined/ },
  );
  await expectProblem(
    BASE_TOML + toolTable("app", "t", { ...JSON_TOOL, sandbox: "host", sandbox_read: ["x"] }),
    BASE_FILES,
    { keyPath: "artifacts.app.views.agent_tools.t.sandbox_read", message: /unconfined/ },
  );
});
