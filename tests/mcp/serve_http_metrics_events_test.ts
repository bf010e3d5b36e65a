/**
 * `/metrics` counts extension restarts, lock mismatches and limit breaches (issue 20),
 * each caused from the outside — through an MCP client of a real `serve --http` — and
 * read back by scraping: an extension server told to exit is restarted by the next call,
 * a tool and an extension changed since `toolhost.lock` are refused, and a tool that
 * starts more processes than its `max_processes` is stopped. Labels are bounded kinds and
 * declared names only.
 */

import assert from "node:assert/strict";
import { currentEnforcement } from "../../lib/limits/enforcement.ts";
import { buildLock } from "../../lib/lock_build/build_lock.ts";
import { writeLockFile } from "../../lib/lock/lock_file.ts";
import { loadWorkspace } from "../../lib/workspace/load_workspace.ts";
import { tempWorkspace } from "../helpers/workspace.ts";
import { extensionToml, REPO } from "./_helpers.ts";
import { client, serveHttp } from "./_http_serve.ts";
import { parseExposition, type Sample, value } from "./_exposition.ts";

const HEAL = [
  "run",
  "-A",
  "--config",
  `${REPO}/deno.json`,
  `${REPO}/tests/fixtures/mcp/heal_server.ts`,
];

// N processes in all: this shell and N-1 sleeping children, for a second.
const FANOUT = `#!/bin/sh
i=1
while [ "$i" -lt "$1" ]; do sleep 1 & i=$((i + 1)); done
wait
echo "ran $1"
`;

const tool = (name: string, description: string, command: string, args: string[], extra = "") =>
  `\n[artifacts.app.views.agent_tools.${name}]\ndescription = "${description}"\n` +
  `protocol = "plain"\ncommand = "${command}"\nargs = ${JSON.stringify(args)}\n${extra}\n`;

function toml(root: string, changed: boolean): string {
  return `[artifacts.app]\npath = "app"\n\n[artifacts.app.evals.review]\naudience = "agent"\n` +
    `extensions = ["hx", "gx"]\n` +
    tool("fan", "Fan out.", "tools/fanout.sh", ["6"], "max_processes = 3") +
    tool("hello", changed ? "Say hello, changed." : "Say hello.", "echo", ["hello"]) +
    extensionToml("hx", { command: "deno", args: HEAL, timeout_ms: 30000 }) +
    extensionToml("gx", {
      command: "deno",
      args: HEAL,
      timeout_ms: 30000,
      env: { HEAL_LOG: `${root}/${changed ? "changed" : "calls"}.log` },
    });
}

const text = (r: unknown) => (r as { content: { text: string }[] }).content[0].text;

const enforceable = currentEnforcement();
if (enforceable.mode === "none") {
  console.log(
    `SKIP limit breach metric: resource limits unenforceable here (${enforceable.reason})`,
  );
}

Deno.test("serve over HTTP: /metrics counts extension restarts, lock mismatches, limit breaches", async () => {
  await using tmp = await tempWorkspace("", {
    "app/README.md": "# app\n",
    "app/tools/fanout.sh": { text: FANOUT, mode: 0o755 },
  });
  Deno.writeTextFileSync(`${tmp.root}/toolhost.toml`, toml(tmp.root, false));
  const ws = await loadWorkspace(tmp.root);
  await writeLockFile(ws, await buildLock(ws, { stateDir: `${tmp.root}/.state` }));
  // Changed since the lock: a tool's description and an extension's declaration.
  Deno.writeTextFileSync(`${tmp.root}/toolhost.toml`, toml(tmp.root, true));
  const served = await serveHttp(tmp.root);
  const metricsUrl = served.url.replace(/\/mcp$/, "/metrics");
  const scrape = async (): Promise<Sample[]> =>
    parseExposition(await (await fetch(metricsUrl)).text());
  try {
    const before = await scrape();
    assert.equal(value(before, "toolhost_lock_mismatches_total", { what: "tool" }), 0);
    assert.equal(value(before, "toolhost_limit_breaches_total", { limit: "processes" }), 0);

    const a = await client(served.url);
    await a.c.listTools();
    // Lock mismatches: the changed tool and the changed extension are refused.
    const hello = await a.c.callTool({ name: "hello_app", arguments: {} });
    assert.equal(hello.isError, true);
    assert.match(text(hello), /LOCK_MISMATCH/);
    const gx = await a.c.callTool({ name: "pid_gx", arguments: {} });
    assert.equal(gx.isError, true);
    assert.match(text(gx), /LOCK_MISMATCH/);
    // An extension restart: the server exits after answering; the next call restarts it.
    const first = text(await a.c.callTool({ name: "pid_hx", arguments: {} }));
    assert.equal(text(await a.c.callTool({ name: "exit_after_hx", arguments: {} })), "bye");
    let second = first;
    for (let i = 0; second === first && i < 200; i++) { // until the exit was noticed
      await new Promise((r) => setTimeout(r, 50));
      const r = await a.c.callTool({ name: "pid_hx", arguments: {} });
      if (!r.isError) second = text(r);
    }
    assert.notEqual(second, first, "the extension was restarted");
    // A limit breach: 6 processes against max_processes = 3.
    if (enforceable.mode !== "none") {
      const fan = await a.c.callTool({ name: "fan_app", arguments: {} });
      assert.equal(text(fan), "The tool was stopped: resource limit: processes.");
    }

    const raw = await (await fetch(metricsUrl)).text();
    const after = parseExposition(raw);
    assert.equal(value(after, "toolhost_lock_mismatches_total", { what: "tool" }), 1);
    assert.equal(value(after, "toolhost_lock_mismatches_total", { what: "extension" }), 1);
    assert.equal(value(after, "toolhost_lock_mismatches_total", { what: "program" }), 0);
    assert.equal(value(after, "toolhost_extension_restarts_total", { extension: "hx" }), 1);
    if (enforceable.mode !== "none") {
      assert.equal(value(after, "toolhost_limit_breaches_total", { limit: "processes" }), 1);
    }
    assert.equal(value(after, "toolhost_limit_breaches_total", { limit: "memory" }), 0);
    // Bounded labels: kinds and declared names, never a path or a value.
    const labelled = after.filter((s) =>
      /^toolhost_(lock_mismatches|extension_restarts|limit_breaches)_total$/.test(s.name)
    );
    for (const s of labelled) {
      for (const v of Object.values(s.labels)) assert.match(v, /^[a-z]+$/, `label ${v}`);
    }
    assert.ok(!raw.includes(tmp.root), "no workspace path in the metrics");
    await a.transport.terminateSession();
    await a.c.close();
  } finally {
    await served.stop();
  }
});
