/**
 * End to end over Streamable HTTP with the SDK's own `Client`: one registry per
 * `Mcp-Session-Id` (independent tool sessions), DELETE ends a session with cleanup,
 * cancellation, Origin/Host/token guards, the loopback-only default, and SIGTERM.
 */
import assert from "node:assert/strict";
import { runCapture } from "../helpers/cli.ts";
import { tempWorkspace } from "../helpers/workspace.ts";
import {
  alive,
  E2E_EVAL,
  E2E_FILES,
  e2eToml,
  groupMembers,
  readPid,
  serveArgs,
  waitFor,
} from "./_helpers.ts";
import { client, INIT_BODY, MCP_POST_HEADERS, rawStatus, serveHttp } from "./_http_serve.ts";

type Text = { type: string; text: string };

Deno.test("serve over HTTP: sessions own registries; list, call, cancel, DELETE, SIGTERM", async () => {
  await using tmp = await tempWorkspace("", E2E_FILES);
  Deno.writeTextFileSync(`${tmp.root}/toolhost.toml`, e2eToml(tmp.root));
  const served = await serveHttp(tmp.root);
  try {
    const a = await client(served.url);
    const names = (await a.c.listTools()).tools.map((t) => t.name);
    assert.ok(
      names.includes("info_app") && names.includes("read_app") && names.includes("echo_fx"),
      `${names}`,
    );
    const info = await a.c.callTool({ name: "info_app", arguments: { name: "x" } });
    assert.deepEqual(info.structuredContent, { greeting: "hello", n: 2 });
    const read = await a.c.callTool({ name: "read_app", arguments: { path: "README.md" } });
    assert.match((read.content as Text[]).map((b) => b.text).join(""), /hello/);
    const env = await a.c.callTool({ name: "envelope_app", arguments: {} });
    assert.match((env.content as Text[])[0].text, /^built\n\[artifact\] id="r1"/);

    const counts = [];
    for (let i = 0; i < 2; i++) {
      counts.push((await a.c.callTool({ name: "count_app", arguments: {} })).structuredContent);
    }
    assert.deepEqual(counts, [{ count: 1 }, { count: 2 }]);

    // A second MCP session has its own registry and its own tool session.
    const b = await client(served.url);
    assert.notEqual(a.transport.sessionId, b.transport.sessionId);
    assert.deepEqual((await b.c.callTool({ name: "count_app", arguments: {} })).structuredContent, {
      count: 1,
    });
    const harnesses = Deno.readTextFileSync(`${tmp.root}/harness.pids`).trim().split("\n").map(
      Number,
    );
    assert.equal(harnesses.length, 2);

    // Cancel a long call: its process group is gone.
    const ctl = new AbortController();
    const slow = a.c.callTool({ name: "slow_app", arguments: {} }, undefined, {
      signal: ctl.signal,
    });
    const slowPid = await readPid(`${tmp.root}/slow.pid`);
    ctl.abort();
    await assert.rejects(slow);
    assert.equal(await waitFor(() => groupMembers(slowPid).length === 0), true);

    // DELETE ends session a: its harness is stopped, b's still runs.
    await a.transport.terminateSession();
    assert.equal(await waitFor(() => !alive(harnesses[0])), true, "session a's harness stopped");
    assert.equal(alive(harnesses[1]), true);
    await a.c.close();

    const status = await served.stop();
    assert.equal(status.code, 0, served.stderr()); // a completed SIGTERM drain
    assert.equal(alive(harnesses[1]), false, "SIGTERM stopped session b's harness");
    assert.match(served.stderr(), /cleanup confirmed/);
    await b.c.close().catch(() => {});
  } finally {
    try {
      served.child.kill("SIGKILL");
    } catch { /* already exited */ }
    await served.child.status;
  }
});

Deno.test("serve over HTTP: bad Origin and Host are refused; unknown sessions get 404", async () => {
  await using tmp = await tempWorkspace("", E2E_FILES);
  Deno.writeTextFileSync(`${tmp.root}/toolhost.toml`, e2eToml(tmp.root));
  const served = await serveHttp(tmp.root);
  try {
    const init = JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: {
        protocolVersion: "2025-06-18",
        capabilities: {},
        clientInfo: { name: "x", version: "1" },
      },
    });
    const headers = {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
    };
    const post = (h: Record<string, string>) =>
      fetch(served.url, { method: "POST", headers: { ...headers, ...h }, body: init });
    const evil = await post({ origin: "https://evil.example" });
    assert.equal(evil.status, 403);
    assert.match(await evil.text(), /Origin not allowed/);
    const port = new URL(served.url).port;
    const good = await post({ origin: `http://localhost:${port}` });
    assert.equal(good.status, 200);
    assert.ok(good.headers.get("mcp-session-id"));
    await good.body?.cancel();
    // DNS rebinding: fetch cannot forge Host, node:http can.
    assert.equal(
      await rawStatus(served.url, { host: `evil.example:${port}`, ...headers }, init),
      403,
    );
    assert.equal(await rawStatus(served.url, { host: `localhost:${port}`, ...headers }, init), 200);
    const stale = await fetch(served.url, {
      method: "POST",
      headers: { ...headers, "mcp-session-id": "no-such-session" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" }),
    });
    assert.equal(stale.status, 404);
    // What a client developer reads in the 404: why, and what to do next.
    assert.match(await stale.text(), /Session not found: .*send initialize again/);
    const noInit = await fetch(served.url, {
      method: "POST",
      headers,
      body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" }),
    });
    assert.equal(noInit.status, 400);
    await noInit.body?.cancel();
  } finally {
    await served.stop();
  }
});

Deno.test("serve over HTTP: --token-env requires the bearer token", async () => {
  await using tmp = await tempWorkspace("", E2E_FILES);
  Deno.writeTextFileSync(`${tmp.root}/toolhost.toml`, e2eToml(tmp.root));
  const served = await serveHttp(tmp.root, ["--token-env", "E2E_TOKEN"], {
    E2E_TOKEN: "t0ken-value-0123456789",
  });
  try {
    await assert.rejects(client(served.url));
    await assert.rejects(client(served.url, { authorization: "Bearer wrong" }));
    const raw = await fetch(served.url, { method: "POST", body: "{}" });
    assert.equal(raw.status, 401);
    assert.match(raw.headers.get("www-authenticate") ?? "", /^Bearer/);
    await raw.body?.cancel();
    const ok = await client(served.url, { authorization: "Bearer t0ken-value-0123456789" });
    assert.ok((await ok.c.listTools()).tools.length > 0);
    await ok.c.close();
  } finally {
    await served.stop();
  }
  assert.doesNotMatch(served.stderr(), /t0ken-value-0123456789/);
});

Deno.test("serve over HTTP: non-loopback binds are refused without --allow-remote", async () => {
  await using tmp = await tempWorkspace("", E2E_FILES);
  Deno.writeTextFileSync(`${tmp.root}/toolhost.toml`, e2eToml(tmp.root));
  const base = ["serve", "--eval", E2E_EVAL, "--repo", tmp.root];
  // One real process shows the exit status reaches the shell; the other refusals happen
  // before anything opens, so they run in-process (a CLI start each would cost seconds).
  const refused = await new Deno.Command(Deno.execPath(), {
    args: serveArgs("--eval", E2E_EVAL, "--repo", tmp.root, "--http", "0.0.0.0:0"),
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(refused.code, 2);
  assert.match(new TextDecoder().decode(refused.stderr), /--allow-remote/);
  const noToken = await runCapture([...base, "--http", "0.0.0.0:0", "--allow-remote"]);
  assert.equal(noToken.code, 2);
  assert.match(noToken.err, /requires a bearer token/);
  const unset = await runCapture([
    ...base,
    "--http",
    "127.0.0.1:0",
    "--token-env",
    "E2E_UNSET_TOKEN",
  ]);
  assert.equal(unset.code, 2);
  assert.match(unset.err, /E2E_UNSET_TOKEN: the variable is unset or empty/);
  const badSpec = await runCapture([...base, "--http", "127.0.0.1"]);
  assert.equal(badSpec.code, 2);
});

Deno.test("serve over HTTP: the token never reaches tools; a loopback bind keeps its Host check", async () => {
  const toml =
    `[artifacts.app]\npath = "app"\n\n[artifacts.app.evals.review]\naudience = "agent"\n\n` +
    `[artifacts.app.views.agent_tools.env]\ndescription = "Show the token variable."\n` +
    `protocol = "plain"\ncommand = "tools/env.sh"\nargs = []\n` +
    `\n[artifacts.app.views.agent_tools.ancestors]\ndescription = "Print ancestors' environ."\n` +
    `protocol = "plain"\ncommand = "tools/ancestors.sh"\nargs = []\n`;
  // A host tool can read the environment toolhost started with (/proc/<pid>/environ is
  // the initial block, which removing a variable does not change): the token must still
  // not leave in a result.
  const ancestors = '#!/bin/sh\np=$PPID\nwhile [ "$p" -gt 1 ]; do\n' +
    '  tr "\\0" "\\n" < /proc/$p/environ 2>/dev/null | grep E2E_TOKEN\n' +
    '  p=$(sed "s/.*) //" /proc/$p/stat | cut -d" " -f2)\ndone\necho end\n';
  await using tmp = await tempWorkspace(toml, {
    "app/tools/env.sh": { text: '#!/bin/sh\necho "token=${E2E_TOKEN:-none}"\n', mode: 0o755 },
    "app/tools/ancestors.sh": { text: ancestors, mode: 0o755 },
  });
  const served = await serveHttp(tmp.root, ["--allow-remote", "--token-env", "E2E_TOKEN"], {
    E2E_TOKEN: "t0ken-value-0123456789",
  });
  try {
    const url = served.url;
    const auth = { authorization: "Bearer t0ken-value-0123456789" };
    const { c } = await client(url, auth);
    const r = await c.callTool({ name: "env_app", arguments: {} });
    assert.equal((r.content as Text[])[0].text.trim(), "token=none");
    const a = await c.callTool({ name: "ancestors_app", arguments: {} });
    const shown = (a.content as Text[])[0].text;
    assert.match(shown, /E2E_TOKEN=\[protected\]/, "the tool found toolhost's environment");
    assert.doesNotMatch(JSON.stringify(a), /t0ken-value-0123456789/);
    await c.close();
    const port = new URL(url).port;
    const init = JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: {
        protocolVersion: "2025-06-18",
        capabilities: {},
        clientInfo: { name: "x", version: "1" },
      },
    });
    const headers = {
      ...auth,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
    };
    assert.equal(await rawStatus(url, { ...headers, host: `attacker.example:${port}` }, init), 403);
    assert.equal(await rawStatus(url, { ...headers, host: `127.0.0.1:${port}` }, init), 200);
  } finally {
    await served.stop();
  }
  assert.doesNotMatch(served.stderr(), /t0ken-value-0123456789/);
});

Deno.test("serve over HTTP: --allow-remote without a token or a token with spaces is refused; a short one is warned about", async () => {
  await using tmp = await tempWorkspace("", E2E_FILES);
  Deno.writeTextFileSync(`${tmp.root}/toolhost.toml`, e2eToml(tmp.root));
  // Refused before anything opens: in-process (serve_http's first refusal runs a process).
  const base = ["serve", "--eval", E2E_EVAL, "--repo", tmp.root, "--http", "127.0.0.1:0"];
  const loop = await runCapture([...base, "--allow-remote"]);
  assert.equal(loop.code, 2);
  assert.match(loop.err, /requires a bearer token/);
  Deno.env.set("E2E_SPACED_TOKEN", "two words");
  try {
    const spaced = await runCapture([...base, "--token-env", "E2E_SPACED_TOKEN"]);
    assert.equal(spaced.code, 2);
    assert.match(spaced.err, /must not contain whitespace/);
    assert.doesNotMatch(spaced.err, /two words/);
  } finally {
    Deno.env.delete("E2E_SPACED_TOKEN");
  }
  // A short token can be guessed (and the same-user check is off with a token): served,
  // with a warning naming the variable, never the value.
  const served = await serveHttp(tmp.root, ["--token-env", "E2E_SHORT_TOKEN"], {
    E2E_SHORT_TOKEN: "t0k",
  });
  await served.stop();
  const warned = served.stderr();
  assert.match(warned, /warning: --token-env E2E_SHORT_TOKEN: the bearer token is shorter than 16/);
  assert.match(warned, /openssl rand -hex 32/);
  assert.ok(!warned.includes("t0k"), "the token's value is never shown");
});

/** POST `tools/list` in session `id`; resolves to the status. */
async function listStatus(url: string, id: string): Promise<number> {
  const r = await fetch(url, {
    method: "POST",
    headers: { ...MCP_POST_HEADERS, "mcp-session-id": id, "mcp-protocol-version": "2025-06-18" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 9, method: "tools/list" }),
  });
  await r.body?.cancel();
  return r.status;
}

Deno.test("serve over HTTP: at --max-sessions a new client evicts the least recently used idle session", async () => {
  await using tmp = await tempWorkspace("", E2E_FILES);
  Deno.writeTextFileSync(`${tmp.root}/toolhost.toml`, e2eToml(tmp.root));
  const served = await serveHttp(tmp.root, ["--max-sessions", "3"]);
  const clients: Awaited<ReturnType<typeof client>>[] = [];
  try {
    const a = await client(served.url);
    clients.push(a);
    assert.deepEqual((await a.c.callTool({ name: "count_app", arguments: {} })).structuredContent, {
      count: 1,
    });
    const harness = Number(Deno.readTextFileSync(`${tmp.root}/harness.pids`).trim());
    for (let i = 0; i < 2; i++) clients.push(await client(served.url));
    for (const x of clients.slice(1)) await x.c.listTools(); // a is the least recently used
    const d = await client(served.url); // a fourth client is served, not refused
    clients.push(d);
    assert.ok((await d.c.listTools()).tools.length > 0);
    // a was evicted: its next request gets the protocol's "session not found"; its tool
    // session was stopped; the other three still work.
    assert.equal(await listStatus(served.url, a.transport.sessionId!), 404);
    assert.equal(await waitFor(() => !alive(harness)), true, "the evicted session's harness");
    for (const x of clients.slice(1)) {
      assert.equal(await listStatus(served.url, x.transport.sessionId!), 200);
    }
    // The evicted client initializes again (evicting the next least recently used).
    const again = await client(served.url);
    clients.push(again);
    assert.deepEqual(
      (await again.c.callTool({ name: "count_app", arguments: {} })).structuredContent,
      {
        count: 1,
      },
    );
    assert.equal(await listStatus(served.url, clients[1].transport.sessionId!), 404);
    assert.match(served.stderr(), /session evicted/);
  } finally {
    for (const x of clients) await x.c.close().catch(() => {});
    const status = await served.stop();
    assert.equal(status.code, 0, served.stderr()); // a completed SIGTERM drain
  }
});

Deno.test("serve over HTTP: a session with a call in flight is never evicted; all busy → 503 + Retry-After", async () => {
  await using tmp = await tempWorkspace("", E2E_FILES);
  Deno.writeTextFileSync(`${tmp.root}/toolhost.toml`, e2eToml(tmp.root));
  const served = await serveHttp(tmp.root, ["--max-sessions", "2"]);
  const clients: Awaited<ReturnType<typeof client>>[] = [];
  const ctl = new AbortController();
  const calls: Promise<unknown>[] = [];
  try {
    for (let i = 0; i < 2; i++) {
      const x = await client(served.url);
      clients.push(x);
      const opts = { signal: ctl.signal, timeout: 120_000 };
      calls.push(
        x.c.callTool({ name: "slow_app", arguments: {} }, undefined, opts).catch(() => {}),
      );
      await readPid(`${tmp.root}/slow.pid`); // this call runs
      Deno.removeSync(`${tmp.root}/slow.pid`);
    }
    const busy = await fetch(served.url, {
      method: "POST",
      headers: MCP_POST_HEADERS,
      body: INIT_BODY,
    });
    assert.equal(busy.status, 503);
    assert.equal(busy.headers.get("retry-after"), "5");
    assert.match(await busy.text(), /Too many sessions/);
    for (const x of clients) {
      assert.equal(await listStatus(served.url, x.transport.sessionId!), 200);
    }
    ctl.abort();
    await Promise.all(calls);
    // Once a session is idle again (its cancelled call ended), a new client is served.
    let later: Awaited<ReturnType<typeof client>> | undefined;
    // A cap, not a deadline: on a busy machine the cancelled call may take a while to end.
    for (const end = Date.now() + 120_000; later === undefined && Date.now() < end;) {
      later = await client(served.url).catch((e) => {
        assert.match(String(e), /Too many sessions/);
        return new Promise<undefined>((r) => setTimeout(() => r(undefined), 250));
      });
    }
    assert.ok(later !== undefined, "a session became idle again");
    clients.push(later);
    assert.ok((await later.c.listTools()).tools.length > 0);
  } finally {
    ctl.abort();
    for (const x of clients) await x.c.close().catch(() => {});
    await served.stop();
  }
});

Deno.test("serve over HTTP: --session-idle-timeout closes an idle session (404 afterwards)", async () => {
  await using tmp = await tempWorkspace("", E2E_FILES);
  Deno.writeTextFileSync(`${tmp.root}/toolhost.toml`, e2eToml(tmp.root));
  const served = await serveHttp(tmp.root, ["--session-idle-timeout", "1s"]);
  try {
    const init = await fetch(served.url, {
      method: "POST",
      headers: MCP_POST_HEADERS,
      body: INIT_BODY,
    });
    assert.equal(init.status, 200);
    const id = init.headers.get("mcp-session-id")!;
    await init.body?.cancel();
    // No request until the server says the session ended (a request is activity): the idle
    // sweep closes it after the timeout, whenever a busy machine lets that happen.
    assert.ok(
      await waitFor(() => /session closed; cleanup confirmed/.test(served.stderr()), 120_000),
      `the idle session was never closed:\n${served.stderr()}`,
    );
    assert.equal(await listStatus(served.url, id), 404);
  } finally {
    await served.stop();
  }
});

Deno.test("serve over HTTP: --max-sessions, --max-connections and --session-idle-timeout are validated and documented", async () => {
  await using tmp = await tempWorkspace("", E2E_FILES);
  Deno.writeTextFileSync(`${tmp.root}/toolhost.toml`, e2eToml(tmp.root));
  // Refused before anything opens: in-process, as `toolhost` runs it (a CLI start each
  // would cost seconds; the exit status reaching the shell is checked above).
  const run = async (args: string[]) => {
    const r = await runCapture(["serve", "--eval", E2E_EVAL, "--repo", tmp.root, ...args]);
    return { code: r.code, text: r.out + r.err };
  };
  const http = ["--http", "127.0.0.1:0"];
  for (const bad of ["0", "-1", "65537", "2.5", "x"]) {
    const r = await run([...http, "--max-sessions", bad]);
    assert.equal(r.code, 2, bad);
    assert.match(r.text, /--max-sessions takes a whole number from 1 to 65536/);
  }
  for (const bad of ["0", "65537", "x"]) {
    const r = await run([...http, "--max-connections", bad]);
    assert.equal(r.code, 2, bad);
    assert.match(r.text, /--max-connections takes a whole number from 1 to 65536/);
  }
  for (const bad of ["0", "0s", "25h", "5x", "1.5m"]) {
    const r = await run([...http, "--session-idle-timeout", bad]);
    assert.equal(r.code, 2, bad);
    assert.match(r.text, /--session-idle-timeout takes a duration from 1s to 24h/);
  }
  const noHttp = await run(["--max-sessions", "3"]);
  assert.equal(noHttp.code, 2);
  assert.match(noHttp.text, /need --http/);
  assert.match((await run(["--max-connections", "3"])).text, /need --http/);
  const help = await run(["--help"]);
  assert.equal(help.code, 0);
  assert.match(help.text, /--max-sessions <n>/);
  assert.match(help.text, /--max-connections <n>/);
  assert.match(help.text, /--session-idle-timeout <duration>/);
});
