/**
 * Self-healing extensions against a fixture server that exits on command
 * (tests/fixtures/mcp/heal_server.ts): lazy restart on the next call, no retry of a call
 * that may have run, one retry when the server was gone before delivery, backoff and the
 * per-minute cap, and a first start that fails staying sticky.
 */

import assert from "node:assert/strict";
import { ExtensionHost } from "../../lib/extensions/host.ts";
import { NotDeliveredError, ProcessGroupTransport } from "../../lib/extensions/group_transport.ts";
import { notDelivered } from "../../lib/extensions/connection.ts";
import { type RestartOptions, RestartPolicy } from "../../lib/extensions/restart_policy.ts";
import { loadWorkspace } from "../../lib/workspace/load_workspace.ts";
import { currentEnforcement } from "../../lib/limits/enforcement.ts";
import { tempWorkspace } from "../helpers/workspace.ts";
import { alive, extensionToml, REPO, waitFor } from "./_helpers.ts";

const HEAL = [
  "run",
  "-A",
  "--config",
  `${REPO}/deno.json`,
  `${REPO}/tests/fixtures/mcp/heal_server.ts`,
];

async function healHost(
  fields: Record<string, unknown> = {},
  restart: RestartOptions = { backoffMs: 10 },
) {
  const tmp = await tempWorkspace("", { "app/README.md": "# app\n" });
  const toml =
    `[artifacts.app]\npath = "app"\n\n[artifacts.app.evals.review]\naudience = "agent"\n` +
    `extensions = ["hx"]\n` +
    extensionToml("hx", {
      command: "deno",
      args: HEAL,
      timeout_ms: 30000,
      env: { HEAL_LOG: `${tmp.root}/calls.log` },
      ...fields,
    });
  Deno.writeTextFileSync(`${tmp.root}/toolhost.toml`, toml);
  const ws = await loadWorkspace(tmp.root);
  const host = ExtensionHost.forEval(ws, "app/review", { restart });
  return { tmp, host, server: host.servers[0] };
}

const text = (r: { content: unknown[] }) => (r.content[0] as { text: string }).text;

Deno.test("a server that died is restarted lazily by the next call", async () => {
  const { tmp, host, server } = await healHost();
  try {
    const first = Number(text(await host.call("pid_hx", {})));
    assert.equal(text(await host.call("exit_after_hx", {})), "bye");
    assert.equal(await waitFor(() => !server.running), true);
    assert.equal(alive(first), false);
    const second = Number(text(await host.call("pid_hx", {})));
    assert.notEqual(second, first);
    assert.equal(server.readiness.restarts, 1);
    assert.equal(text(await host.call("echo_hx", { text: "again" })), "again");
  } finally {
    await host.close();
    await tmp.cleanup();
  }
});

Deno.test("a call during which the server dies is not retried: it may have run", async () => {
  const { tmp, host, server } = await healHost();
  try {
    const r = await host.call("crash_hx", {});
    assert.equal(r.isError, true);
    assert.match(text(r), /ended while the call was running; it was not retried/);
    assert.equal(Deno.readTextFileSync(`${tmp.root}/calls.log`), "crash\n"); // ran once
    assert.equal(text(await host.call("echo_hx", { text: "ok" })), "ok");
    assert.equal(server.readiness.restarts, 1);
  } finally {
    await host.close();
    await tmp.cleanup();
  }
});

Deno.test("a server killed before the call is started afresh and the call runs once", async () => {
  const { tmp, host, server } = await healHost();
  try {
    const pid = Number(text(await host.call("pid_hx", {})));
    Deno.kill(pid, "SIGKILL");
    assert.equal(await waitFor(() => !server.running), true);
    assert.equal(text(await host.call("echo_hx", { text: "fresh" })), "fresh");
    assert.notEqual(Number(text(await host.call("pid_hx", {}))), pid);
  } finally {
    await host.close();
    await tmp.cleanup();
  }
});

Deno.test("the restart cap: beyond it, calls get an error saying when to retry", async () => {
  const { tmp, host, server } = await healHost({}, { backoffMs: 10, maxRestarts: 2 });
  try {
    for (let i = 0; i < 2; i++) {
      await host.call("crash_hx", {});
      assert.equal(text(await host.call("echo_hx", { text: `up ${i}` })), `up ${i}`);
    }
    await host.call("crash_hx", {});
    const capped = await host.call("echo_hx", { text: "no" });
    assert.equal(capped.isError, true);
    assert.match(
      text(capped),
      /restarted 2 times within a minute; it is not restarted again for \d+ s/,
    );
    assert.equal(server.running, false);
    assert.equal(server.readiness.restarts, 2);
    assert.equal(Deno.readTextFileSync(`${tmp.root}/calls.log`), "crash\ncrash\ncrash\n");
  } finally {
    await host.close();
    await tmp.cleanup();
  }
});

Deno.test("a first start that fails stays sticky: no restart", async () => {
  const { tmp, host, server } = await healHost({ command: "sh", args: ["-c", "exit 3"] });
  try {
    const a = await host.call("echo_hx", { text: "x" });
    const b = await host.call("echo_hx", { text: "x" });
    assert.equal(a.isError, true);
    assert.deepEqual(b, a);
    assert.equal(server.readiness.started, true);
    assert.equal(server.readiness.restarts, undefined);
  } finally {
    await host.close();
    await tmp.cleanup();
  }
});

Deno.test("a message to a server that is already gone is refused as not delivered", async () => {
  const t = new ProcessGroupTransport({
    command: "/bin/sh",
    args: ["-c", "exit 0"],
    cwd: "/",
    env: {},
  });
  await t.start();
  assert.equal(await waitFor(() => !t.alive), true);
  await assert.rejects(t.send({ jsonrpc: "2.0", id: 1, method: "ping" }), NotDeliveredError);
  await t.close();
  assert.equal(t.cleanup?.confirmed, true);
  assert.equal(notDelivered(new NotDeliveredError()), true);
  assert.equal(notDelivered(new Error("Not connected")), true);
  assert.equal(notDelivered(new Error("Connection closed")), false);
});

Deno.test("restart policy: first restart at once, then exponential backoff, then the cap", () => {
  const p = new RestartPolicy({
    maxRestarts: 3,
    backoffMs: 100,
    maxBackoffMs: 150,
    windowMs: 1000,
  });
  assert.deepEqual(p.next(0), { ok: true, waitMs: 0 });
  p.record(0);
  assert.deepEqual(p.next(10), { ok: true, waitMs: 90 });
  p.record(100);
  assert.deepEqual(p.next(100), { ok: true, waitMs: 150 }); // 200 capped at 150
  p.record(250);
  assert.deepEqual(p.next(300), { ok: false, retryAfterMs: 700, max: 3 });
  assert.equal(p.count(999), 3);
  assert.deepEqual(p.next(1000), { ok: true, waitMs: 0 }); // the first restart left the window
});

Deno.test({
  name: "an extension past its memory limit is stopped with the reason, then restarted",
  ignore: currentEnforcement().mode === "none",
  async fn() {
    const { tmp, host, server } = await healHost({ max_memory_mb: 400 });
    try {
      const r = await host.call("hog_hx", {});
      assert.equal(r.isError, true);
      assert.equal(
        text(r),
        "The extension `hx` was stopped: resource limit: memory (max_memory_mb = 400).",
      );
      assert.equal(text(await host.call("echo_hx", { text: "back" })), "back");
      assert.equal(server.readiness.restarts, 1);
    } finally {
      await host.close();
      await tmp.cleanup();
    }
  },
});
