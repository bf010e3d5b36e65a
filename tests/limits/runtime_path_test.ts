/**
 * A tool whose command line names the runtime's own binary runs with exactly the argv
 * declared. Deno's `node:child_process` rewrites what follows an argument equal to its own
 * path (`run tool.ts` → `run -A tool.ts`): through the prlimit or cgroup wrapper of a
 * limited tool, through `env`, or with `command` being the Deno binary itself, a tool
 * declared without permissions would run with all of them. Seen from the outside: a
 * `deno run` tool (or extension server) that tries to read a file must be denied, limited or not.
 */

import assert from "node:assert/strict";
import { currentEnforcement } from "../../lib/limits/enforcement.ts";
import { ProcessGroupTransport } from "../../lib/extensions/group_transport.ts";
import { Registry } from "../../lib/registry/registry.ts";
import { loadWorkspace } from "../../lib/workspace/load_workspace.ts";
import { tempWorkspace } from "../helpers/workspace.ts";

const SELF = Deno.execPath();
const READ = `try {
  Deno.readTextFileSync("/etc/hostname");
  console.log("READ");
} catch (e) {
  console.log(e instanceof Deno.errors.NotCapable || e instanceof Deno.errors.PermissionDenied ? "DENIED" : "ERROR");
}
`;

const tool = (name: string, command: string, args: string[], extra = "") =>
  `\n[artifacts.app.views.agent_tools.${name}]\ndescription = "${name}"\nprotocol = "plain"\n` +
  `command = ${JSON.stringify(command)}\nargs = ${JSON.stringify(args)}\n${extra}\n`;

const RUN = ["run", "--no-prompt", "--no-config", "--quiet", "read.ts"];
const LIMITS = "max_processes = 64\nmax_cpu_seconds = 60";

const TOML = `[artifacts.app]\npath = "app"\n\n[artifacts.app.evals.review]\naudience = "agent"\n` +
  tool("plain", "deno", RUN) +
  tool("limited", "deno", RUN, LIMITS) +
  tool("via_env", "env", [SELF, ...RUN]) +
  tool("via_env_limited", "env", [SELF, ...RUN], LIMITS);

const text = (r: { content: unknown[] }) => (r.content[0] as { text: string }).text;

/** Where `deno` is found on PATH (the tools' `command = "deno"`). */
function denoOnPath(): string | undefined {
  for (const dir of (Deno.env.get("PATH") ?? "").split(":")) {
    try {
      if (Deno.statSync(`${dir}/deno`).isFile) return `${dir}/deno`;
    } catch { /* not here */ }
  }
}

Deno.test("a deno tool declared without permissions gets none, however it is spawned", async () => {
  // `command = "deno"` exercises the rewrite only when it resolves to this very binary, as
  // with the documented `PATH=$(dirname $DENO):$PATH`; the `env` tools name it directly.
  if (denoOnPath() !== SELF) console.log("NOTE: deno on PATH is not this runtime's binary");
  const tmp = await tempWorkspace(TOML, { "app/README.md": "# app\n", "app/read.ts": READ });
  const ws = await loadWorkspace(tmp.root);
  const reg = await Registry.open(ws, "app/review", { stateDir: `${tmp.root}/.state` });
  try {
    // Limited tools are refused where no enforcement is available: those are skipped.
    const limited = currentEnforcement().mode !== "none";
    if (!limited) console.log("SKIP limited variants: no limit enforcement on this host");
    const names = limited
      ? ["plain", "limited", "via_env", "via_env_limited"]
      : ["plain", "via_env"];
    for (const name of names) {
      const r = await reg.call(`${name}_app`, {});
      assert.equal(r.isError, false, `${name}: ${text(r)}`);
      assert.equal(text(r).trim(), "DENIED", `${name}: the tool got permissions it never declared`);
    }
  } finally {
    await reg.close();
    await tmp.cleanup();
  }
});

const SERVER = `let read = "READ";
try {
  Deno.readTextFileSync("/etc/hostname");
} catch {
  read = "DENIED";
}
console.log(JSON.stringify({ jsonrpc: "2.0", method: "notifications/message", params: { read } }));
`;

Deno.test("an extension server started as deno gets no permission it did not declare", async () => {
  const dir = await Deno.makeTempDir({ prefix: "toolhost_runtime_path_" });
  try {
    await Deno.writeTextFile(`${dir}/server.ts`, SERVER);
    const run = ["run", "--no-prompt", "--no-config", "--quiet", `${dir}/server.ts`];
    for (const [command, args] of [[SELF, run], ["/usr/bin/env", [SELF, ...run]]] as const) {
      const t = new ProcessGroupTransport({ command, args: [...args], cwd: dir, env: {} });
      const seen: unknown[] = [];
      const closed = new Promise<void>((resolve) => (t.onclose = resolve));
      t.onmessage = (m) => seen.push((m as { params?: { read?: string } }).params?.read);
      await t.start();
      await closed;
      await t.close();
      assert.deepEqual(seen, ["DENIED"], `${command}: the server got permissions`);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
