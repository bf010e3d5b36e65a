/**
 * `serve --http` behind a load balancer: `/healthz` and `/readyz` answer without the token
 * (behind the Host/Origin checks) and say nothing about the workspace; SIGTERM drains (readiness 503, no new sessions,
 * the call in flight finishes), then every session closes with cleanup and the process
 * exits 0; `--drain-timeout` bounds the wait; a gone session is 404 on any replica.
 */
import assert from "node:assert/strict";
import { runCapture } from "../helpers/cli.ts";
import { tempWorkspace } from "../helpers/workspace.ts";
import { alive, E2E_EVAL, E2E_FILES, e2eToml, groupMembers, readPid, waitFor } from "./_helpers.ts";
import { client, INIT_BODY, MCP_POST_HEADERS, serveHttp } from "./_http_serve.ts";

type Text = { type: string; text: string };

/** The e2e workspace plus `gate_app`: runs until the file `open` exists in the root. */
function gateToml(root: string): string {
  const script = 'echo $$ > "$TEST_PIDDIR/gate.pid"; ' +
    'while [ ! -e "$TEST_PIDDIR/open" ]; do sleep 0.05; done; echo released';
  return e2eToml(root) +
    `\n[artifacts.app.views.agent_tools.gate]\ndescription = "Wait for the gate."\n` +
    `protocol = "plain"\ncommand = "sh"\nargs = ["-c", ${JSON.stringify(script)}]\n`;
}

async function get(url: string, init: RequestInit = {}): Promise<{ status: number; text: string }> {
  const r = await fetch(url, init);
  return { status: r.status, text: await r.text() };
}

Deno.test("serve over HTTP: /healthz and /readyz need no token and reveal nothing", async () => {
  await using tmp = await tempWorkspace("", E2E_FILES);
  Deno.writeTextFileSync(`${tmp.root}/toolhost.toml`, gateToml(tmp.root));
  const served = await serveHttp(tmp.root, ["--token-env", "E2E_TOKEN"], {
    E2E_TOKEN: "t0k-0123456789abcdef",
  });
  try {
    const base = served.url.replace(/\/mcp$/, "");
    const health = await get(`${base}/healthz`);
    assert.deepEqual(health, { status: 200, text: "ok\n" });
    const ready = await get(`${base}/readyz`);
    assert.deepEqual(ready, { status: 200, text: "ready\n" });
    // Behind the Host/Origin checks like every endpoint (http_probe_guard_test.ts).
    const foreign = await get(`${base}/readyz`, { headers: { origin: "http://evil.example" } });
    assert.equal(foreign.status, 403);
    const head = await fetch(`${base}/readyz`, { method: "HEAD" });
    assert.equal(head.status, 200);
    await head.body?.cancel();
    const post = await get(`${base}/healthz`, { method: "POST", body: "{}" });
    assert.equal(post.status, 405);
    // The MCP endpoint itself stays behind the token.
    const mcp = await get(served.url, {
      method: "POST",
      headers: MCP_POST_HEADERS,
      body: INIT_BODY,
    });
    assert.equal(mcp.status, 401);
  } finally {
    const status = await served.stop();
    assert.equal(status.code, 0, "a completed SIGTERM drain is a clean stop");
  }
});

Deno.test("serve over HTTP: SIGTERM drains — readyz 503, no new session, the call in flight finishes, cleanup, exit 0", async () => {
  await using tmp = await tempWorkspace("", E2E_FILES);
  Deno.writeTextFileSync(`${tmp.root}/toolhost.toml`, gateToml(tmp.root));
  const served = await serveHttp(tmp.root, ["--drain-timeout", "10m"]);
  const other = await serveHttp(tmp.root);
  try {
    const base = served.url.replace(/\/mcp$/, "");
    const a = await client(served.url);
    await a.c.callTool({ name: "count_app", arguments: {} });
    const harness = Number(Deno.readTextFileSync(`${tmp.root}/harness.pids`).trim());
    const call = a.c.callTool({ name: "gate_app", arguments: {} }, undefined, {
      timeout: 600_000,
    });
    const gatePid = await readPid(`${tmp.root}/gate.pid`);
    served.child.kill("SIGTERM");
    assert.equal(await waitFor(() => /draining/.test(served.stderr()), 60_000), true);
    assert.equal((await get(`${base}/readyz`)).status, 503);
    assert.deepEqual(await get(`${base}/healthz`), { status: 200, text: "ok\n" });
    const refused = await fetch(served.url, {
      method: "POST",
      headers: MCP_POST_HEADERS,
      body: INIT_BODY,
    });
    assert.equal(refused.status, 503);
    assert.ok(refused.headers.get("retry-after"));
    await refused.body?.cancel();
    assert.equal(alive(gatePid), true, "the call is still running");
    assert.equal(alive(harness), true, "its session is still open");

    Deno.writeTextFileSync(`${tmp.root}/open`, "");
    const result = await call;
    assert.match((result.content as Text[])[0].text, /released/);
    const status = await served.child.status;
    assert.equal(status.code, 0, served.stderr()); // every open request finished
    assert.match(served.stderr(), /cleanup confirmed/);
    assert.doesNotMatch(served.stderr(), /drain timeout/);
    assert.equal(alive(harness), false, "the session's harness was stopped");
    assert.deepEqual(groupMembers(gatePid), []);

    // The session is gone: another replica answers 404 (session not found), and a
    // fresh initialize there works.
    const sid = a.transport.sessionId!;
    const lost = await fetch(other.url, {
      method: "POST",
      headers: { ...MCP_POST_HEADERS, "mcp-session-id": sid, "mcp-protocol-version": "2025-06-18" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" }),
    });
    assert.equal(lost.status, 404);
    await lost.body?.cancel();
    const again = await client(other.url);
    assert.ok((await again.c.listTools()).tools.length > 0);
    await again.c.close();
    await a.c.close().catch(() => {});
  } finally {
    for (const s of [served, other]) {
      try {
        s.child.kill("SIGKILL");
      } catch { /* exited */ }
      await s.stop().catch(() => {});
    }
  }
});

Deno.test("serve over HTTP: --drain-timeout bounds the wait; the cut call's processes are gone", async () => {
  await using tmp = await tempWorkspace("", E2E_FILES);
  Deno.writeTextFileSync(`${tmp.root}/toolhost.toml`, gateToml(tmp.root));
  const served = await serveHttp(tmp.root, ["--drain-timeout", "0s"]);
  try {
    const a = await client(served.url);
    const call = a.c.callTool({ name: "gate_app", arguments: {} }, undefined, {
      timeout: 600_000,
    }).catch((e) => e);
    const gatePid = await readPid(`${tmp.root}/gate.pid`);
    const status = await served.stop();
    assert.equal(status.code, 143, served.stderr()); // cut short: 128 + SIGTERM's 15
    assert.match(served.stderr(), /drain timeout: 1 open request\(s\) cut/);
    assert.match(served.stderr(), /cleanup confirmed/);
    assert.equal(await waitFor(() => groupMembers(gatePid).length === 0), true);
    await call;
    await a.c.close().catch(() => {});
  } finally {
    try {
      served.child.kill("SIGKILL");
    } catch { /* exited */ }
  }
});

Deno.test("serve over HTTP: --drain-timeout is validated and documented", async () => {
  await using tmp = await tempWorkspace("", E2E_FILES);
  Deno.writeTextFileSync(`${tmp.root}/toolhost.toml`, e2eToml(tmp.root));
  // Refused before anything opens: in-process, as `toolhost` runs it (a CLI start each
  // would cost seconds; serve_http_test.ts checks the exit status reaches the shell).
  const run = async (args: string[]) => {
    const r = await runCapture(["serve", "--eval", E2E_EVAL, "--repo", tmp.root, ...args]);
    return { code: r.code, text: r.out + r.err };
  };
  for (const bad of ["-1", "2h", "5x", "1.5s", ""]) {
    const r = await run(["--http", "127.0.0.1:0", "--drain-timeout", bad]);
    assert.equal(r.code, 2, bad);
    assert.match(r.text, /--drain-timeout takes a duration from 0s to 1h/);
  }
  const noHttp = await run(["--drain-timeout", "5s"]);
  assert.equal(noHttp.code, 2);
  assert.match(noHttp.text, /need --http/);
  const help = await run(["--help"]);
  assert.match(help.text, /--drain-timeout <duration>/);
  assert.match(help.text, /default 30s/);
  assert.match(help.text, /\/readyz/);
});
