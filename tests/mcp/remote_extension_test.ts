/**
 * Remote extensions (`url = ...`) against a real MCP server built with the official SDK,
 * started on loopback by the test (tests/fixtures/mcp/remote_server.ts): Streamable HTTP
 * and the legacy HTTP+SSE fallback, headers from the environment, a 401 that names the
 * variable to set (never the token), a connection dropped mid-call (not retried; the
 * next call reconnects), spill of oversized text, the lock, and manifest validation.
 */

import assert from "node:assert/strict";
import { buildLock } from "../../lib/lock_build/build_lock.ts";
import { BLOCKED_DESCRIPTION } from "../../lib/lock/registry_lock.ts";
import { writeLockFile } from "../../lib/lock/lock_file.ts";
import { evalToolSource } from "../../lib/mcp/tool_source.ts";
import { Registry } from "../../lib/registry/registry.ts";
import { countRendered } from "../../lib/odek/render.ts";
import { loadWorkspace } from "../../lib/workspace/load_workspace.ts";
import { extensionsOf } from "../../lib/workspace/parse_extensions.ts";
import { tempWorkspace } from "../helpers/workspace.ts";
import { startRemoteServer, WAV_B64 } from "../fixtures/mcp/remote_server.ts";
import { extensionToml } from "./_helpers.ts";

const TOKEN = "s3cr3t-token-value";

function toml(fields: Record<string, unknown>): string {
  return `[artifacts.app]\npath = "app"\n\n[artifacts.app.evals.review]\naudience = "agent"\n` +
    `extensions = ["rx"]\n` + extensionToml("rx", { timeout_ms: 30000, ...fields });
}

async function remoteSource(
  fields: Record<string, unknown>,
  env: Record<string, string> = {},
  opts: { lock?: boolean } = {},
) {
  const tmp = await tempWorkspace(toml(fields), { "app/README.md": "# app\n" });
  const stateDir = `${tmp.root}/.state`;
  const ws = await loadWorkspace(tmp.root);
  if (opts.lock) await writeLockFile(ws, await buildLock(ws, { stateDir, env }));
  const reg = await Registry.open(ws, "app/review", { stateDir, env });
  return { tmp, ws, source: evalToolSource(reg) };
}

const text = (r: { content: unknown[] }) => (r.content[0] as { text: string }).text;

Deno.test("a remote extension over Streamable HTTP lists and calls, headers from the env", async () => {
  const server = await startRemoteServer({ token: TOKEN });
  const { tmp, source } = await remoteSource({
    url: server.url,
    bearer_token_env_var: "RX_TOKEN",
    env_http_headers: { "X-Api-Key": "RX_KEY" },
    http_headers: { "X-Team": "core" },
  }, { RX_TOKEN: TOKEN, RX_KEY: "k" });
  try {
    const names = (await source.list()).map((t) => t.name);
    assert.ok(names.includes("echo_rx") && names.includes("drop_rx"), names.join());
    assert.equal(text(await source.call("echo_rx", { text: "hi" })), "hi");
    assert.equal(text(await source.call("headers_rx", {})), "x-api-key,x-team,authorization");
  } finally {
    await source.close();
    await server.close();
    await tmp.cleanup();
  }
});

Deno.test("a 401 names the extension and the variable to set, never the token", async () => {
  const server = await startRemoteServer({ token: TOKEN });
  const { tmp, source } = await remoteSource(
    { url: server.url, bearer_token_env_var: "RX_TOKEN" },
    { RX_TOKEN: "wrong-token-value" },
  );
  try {
    const r = await source.call("echo_rx", { text: "hi" });
    assert.equal(r.isError, true);
    const t = text(r);
    assert.doesNotMatch(t, /wrong-token-value|secret-detail/);
    // The call of an unlisted tool names what was published; the listing log has the why.
    const logs: string[] = [];
    const { ExtensionHost } = await import("../../lib/extensions/host.ts");
    const ws = await loadWorkspace(tmp.root);
    const host = ExtensionHost.forEval(ws, "app/review", {
      env: { RX_TOKEN: "wrong-token-value" },
      log: (l) => logs.push(l),
    });
    assert.deepEqual(await host.list(), []);
    const line = logs.join("\n");
    assert.match(line, /extension `rx`.*HTTP 401.*`RX_TOKEN`/);
    assert.doesNotMatch(line, /wrong-token-value|secret-detail/);
    const readiness = await host.readiness();
    assert.match(readiness[0].error ?? "", /HTTP 401.*`RX_TOKEN`/);
    await host.close();
  } finally {
    await source.close();
    await server.close();
    await tmp.cleanup();
  }
});

Deno.test("an unset token variable is named before anything is sent", async () => {
  const server = await startRemoteServer({ token: TOKEN });
  const { ExtensionHost } = await import("../../lib/extensions/host.ts");
  const { tmp, ws } = await remoteSource({ url: server.url, bearer_token_env_var: "RX_TOKEN" });
  try {
    const host = ExtensionHost.forEval(ws, "app/review", { env: {} });
    const r = await host.readiness();
    assert.match(r[0].error ?? "", /set the environment variable `RX_TOKEN`.*extensions\.rx/);
    assert.equal(server.calls.length, 0);
    await host.close();
  } finally {
    await server.close();
    await tmp.cleanup();
  }
});

Deno.test("a connection dropped mid-call fails that call (not retried); the next reconnects", async () => {
  const server = await startRemoteServer();
  const { tmp, source } = await remoteSource({ url: server.url });
  try {
    assert.equal(text(await source.call("count_rx", {})), "1");
    const r = await source.call("drop_rx", {});
    assert.equal(r.isError, true);
    assert.match(text(r), /ended while the call was running; it was not retried/);
    assert.equal(server.calls.filter((c) => c === "drop").length, 1);
    assert.equal(text(await source.call("count_rx", {})), "2");
  } finally {
    await source.close();
    await server.close();
    await tmp.cleanup();
  }
});

Deno.test("a legacy HTTP+SSE server is reached by falling back", async () => {
  const server = await startRemoteServer({ legacy: true });
  const { tmp, source } = await remoteSource({ url: server.url });
  try {
    assert.equal(text(await source.call("echo_rx", { text: "old" })), "old");
  } finally {
    await source.close();
    await server.close();
    await tmp.cleanup();
  }
});

Deno.test("a remote extension's oversized text is spilled to an artifact", async () => {
  const server = await startRemoteServer();
  const { tmp, source } = await remoteSource({ url: server.url });
  try {
    const r = await source.call("big_rx", {});
    assert.equal(r.isError, false);
    assert.equal(countRendered(text(r)), 1);
    assert.match(text(r), /size=102400 bytes/);
  } finally {
    await source.close();
    await server.close();
    await tmp.cleanup();
  }
});

Deno.test("tool filters: filtered tools are neither listed nor callable; the lock records them", async () => {
  const server = await startRemoteServer();
  const { tmp, source } = await remoteSource(
    { url: server.url, enabled_tools: ["e*", "count", "big"], disabled_tools: ["big"] },
    {},
    { lock: true },
  );
  try {
    const names = (await source.list()).map((t) => t.name).filter((n) => n.endsWith("_rx"));
    assert.deepEqual(names.sort(), ["count_rx", "echo_rx"]);
    const r = await source.call("drop_rx", {});
    assert.equal(r.isError, true);
    assert.equal(server.calls.includes("drop"), false);
    const lock = JSON.parse(Deno.readTextFileSync(`${tmp.root}/toolhost.lock`));
    const entry = lock.evals["app/review"].extensions.rx;
    assert.equal(entry.declaration.remote.url, server.url);
    assert.deepEqual(entry.declaration.enabled_tools, ["e*", "count", "big"]);
    assert.deepEqual(entry.declaration.disabled_tools, ["big"]);
    assert.deepEqual(Object.keys(entry.tools).sort(), ["count", "echo"]);
    assert.equal(text(await source.call("echo_rx", { text: "ok" })), "ok");
  } finally {
    await source.close();
    await server.close();
    await tmp.cleanup();
  }
});

Deno.test("changing a locked extension's filters blocks it until the lock is updated", async () => {
  const server = await startRemoteServer();
  const { tmp } = await remoteSource({ url: server.url, enabled_tools: ["echo"] }, {}, {
    lock: true,
  });
  try {
    Deno.writeTextFileSync(
      `${tmp.root}/toolhost.toml`,
      toml({ url: server.url, enabled_tools: ["echo", "count"] }),
    );
    const ws = await loadWorkspace(tmp.root);
    const source = evalToolSource(
      await Registry.open(ws, "app/review", { stateDir: `${tmp.root}/.state`, env: {} }),
    );
    // Held back: its locked tools are listed neutrally and refused, nothing is contacted.
    const listed = (await source.list()).filter((t) => t.name.endsWith("_rx"));
    assert.deepEqual(listed.map((t) => [t.name, t.description]), [[
      "echo_rx",
      BLOCKED_DESCRIPTION,
    ]]);
    const r = await source.call("echo_rx", { text: "x" });
    assert.match(text(r), /LOCK_MISMATCH.*extension `rx`: declaration `enabled_tools` changed/);
    assert.equal(server.calls.length, 0);
    await source.close();
  } finally {
    await server.close();
    await tmp.cleanup();
  }
});

Deno.test("the lock never holds a header value or token", async () => {
  const server = await startRemoteServer({ token: TOKEN });
  const { tmp, source } = await remoteSource(
    { url: server.url, bearer_token_env_var: "RX_TOKEN", env_http_headers: { "X-K": "RX_KEY" } },
    { RX_TOKEN: TOKEN, RX_KEY: "header-secret-value" },
    { lock: true },
  );
  try {
    const lock = Deno.readTextFileSync(`${tmp.root}/toolhost.lock`);
    assert.doesNotMatch(lock, /s3cr3t|header-secret-value/);
    assert.match(lock, /"echo"/);
  } finally {
    await source.close();
    await server.close();
    await tmp.cleanup();
  }
});

async function problems(fields: Record<string, unknown>): Promise<string> {
  const tmp = await tempWorkspace(toml(fields), { "app/README.md": "# app\n" });
  try {
    await loadWorkspace(tmp.root);
    return "";
  } catch (e) {
    return (e as Error).message;
  } finally {
    await tmp.cleanup();
  }
}

Deno.test("manifest validation of remote extensions, with key path and line", async () => {
  assert.match(
    await problems({ url: "http://example.com/mcp" }),
    /toolhost\.toml:10: extensions\.rx\.url: http:\/\/ is refused except to a loopback address/s,
  );
  for (const ok of ["https://example.com/mcp", "http://127.0.0.5:9/mcp", "http://[::1]:9/mcp"]) {
    assert.equal(await problems({ url: ok }), "", ok);
  }
  assert.equal(await problems({ url: "http://localhost:9/mcp" }), "");
  assert.match(await problems({ url: "https://u:p@h/mcp" }), /must not carry credentials/);
  assert.match(await problems({ url: "ftp://h/x" }), /must be an https:\/\/ URL/);
  assert.match(
    await problems({ url: "https://h/mcp", command: "x" }),
    /cannot be given together with `url`/,
  );
  assert.match(
    await problems({ url: "https://h/mcp", args: ["x"] }),
    /extensions\.rx\.args.*applies to an extension started with `command` only/s,
  );
  assert.match(
    await problems({ url: "https://h/mcp", env_http_headers: { "X-K": "literal value!" } }),
    /must name an environment variable/,
  );
  assert.match(
    await problems({ url: "https://h/mcp", http_headers: { Authorization: "Bearer x" } }),
    /would put a secret in the manifest/,
  );
  assert.match(
    await problems({ command: "x", bearer_token_env_var: "T" }),
    /applies to a remote extension/,
  );
  assert.match(await problems({ command: "x", enabled_tools: ["a b"] }), /enabled_tools\[0\]/);
  assert.match(await problems({}), /is required \(a string\), or `url`/);
});

Deno.test("Codex's timeout keys are taken as written there", async () => {
  const tmp = await tempWorkspace(
    toml({ url: "https://h/mcp", startup_timeout_sec: 5, tool_timeout_sec: 1.5 }).replace(
      "timeout_ms = 30000\n",
      "",
    ),
    { "app/README.md": "# app\n" },
  );
  try {
    const d = extensionsOf(await loadWorkspace(tmp.root)).decls.get("rx")!;
    assert.equal(d.timeoutMs, 1500);
    assert.equal(d.connectTimeoutMs, 5000);
    assert.equal(d.remote?.url, "https://h/mcp");
  } finally {
    await tmp.cleanup();
  }
});

Deno.test("audio, embedded resources and resource links from an extension reach the client", async () => {
  const server = await startRemoteServer();
  const { tmp, source } = await remoteSource({ url: server.url });
  try {
    const r = await source.call("rich_rx", {});
    assert.equal(r.isError, false);
    assert.deepEqual(r.content, [
      { type: "text", text: "mixed" },
      { type: "audio", data: WAV_B64, mimeType: "audio/wav" },
      {
        type: "resource",
        resource: { uri: "test://doc/1", mimeType: "text/plain", text: "embedded text" },
      },
      {
        type: "resource",
        resource: { uri: "test://bin/1", mimeType: "application/octet-stream", blob: "AAEC" },
      },
      { type: "resource_link", uri: "test://doc/2", name: "doc2", mimeType: "text/plain" },
    ]);
    const { toMcpResult } = await import("../../lib/mcp/result_mapping.ts");
    assert.deepEqual(toMcpResult(r).content, r.content);
  } finally {
    await source.close();
    await server.close();
    await tmp.cleanup();
  }
});

Deno.test("closing a remote extension ends the session its server assigned", async () => {
  const server = await startRemoteServer({ stateful: true });
  const { tmp, source } = await remoteSource({ url: server.url });
  try {
    assert.equal(text(await source.call("echo_rx", { text: "s" })), "s");
    assert.equal(server.sessions, 1);
  } finally {
    await source.close();
    assert.equal(server.deletes, 1);
    assert.equal(server.sessions, 0);
    await server.close();
    await tmp.cleanup();
  }
});
