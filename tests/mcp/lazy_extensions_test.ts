/**
 * Lazy extensions (issue 18): with a current toolhost.lock, listing an eval shows the
 * extension's tools from the lock without contacting its server; the first call starts
 * it and verifies its live tool list against the lock before the call runs (a drifted
 * tool is refused with LOCK_MISMATCH and never sent). Without a lock, listing starts it
 * as before. `tools list` shows the locked extension tools, marked as such. The server
 * is a real MCP server on loopback that counts the HTTP requests it gets.
 */

import assert from "node:assert/strict";
import { buildLock } from "../../lib/lock_build/build_lock.ts";
import { writeLockFile } from "../../lib/lock/lock_file.ts";
import { evalToolSource } from "../../mod.ts"; // the library export
import { Registry } from "../../lib/registry/registry.ts";
import { loadWorkspace } from "../../lib/workspace/load_workspace.ts";
import { tempWorkspace } from "../helpers/workspace.ts";
import { runCapture } from "../helpers/cli.ts";
import { type RemoteServer, startRemoteServer } from "../fixtures/mcp/remote_server.ts";
import { extensionToml } from "./_helpers.ts";

function toml(url: string): string {
  return `[artifacts.app]\npath = "app"\n\n[artifacts.app.evals.review]\naudience = "agent"\n` +
    `extensions = ["rx"]\n` +
    extensionToml("rx", { url, timeout_ms: 30000, enabled_tools: ["echo", "count"] });
}

async function setup(server: RemoteServer, lock: boolean) {
  const tmp = await tempWorkspace(toml(server.url), { "app/README.md": "# app\n" });
  const stateDir = `${tmp.root}/.state`;
  const ws = await loadWorkspace(tmp.root);
  if (lock) await writeLockFile(ws, await buildLock(ws, { stateDir, env: {} }));
  server.requests = 0;
  const open = async () =>
    evalToolSource(await Registry.open(ws, "app/review", { stateDir, env: {} }));
  return { tmp, open };
}

const text = (r: { content: unknown[] }) => (r.content[0] as { text: string }).text;
const extTools = (l: { name: string }[]) => l.map((t) => t.name).filter((n) => n.endsWith("_rx"));

Deno.test("with a current lock, listing contacts no server; the first call starts and verifies it", async () => {
  const server = await startRemoteServer();
  const { tmp, open } = await setup(server, true);
  const source = await open();
  try {
    const listed = await source.list();
    assert.deepEqual(extTools(listed).sort(), ["count_rx", "echo_rx"]);
    assert.equal(listed.find((t) => t.name === "echo_rx")?.description, "Echo.");
    assert.equal(server.requests, 0, "listing from the lock sent nothing");
    assert.equal(text(await source.call("echo_rx", { text: "lazy" })), "lazy");
    assert.ok(server.requests > 0);
    assert.deepEqual(server.calls, ["echo"]);
  } finally {
    await source.close();
    await server.close();
    await tmp.cleanup();
  }
});

Deno.test("a server that drifted from the lock: the first call is refused, never sent", async () => {
  const server = await startRemoteServer();
  const { tmp, open } = await setup(server, true);
  const source = await open();
  try {
    server.redescribe = true;
    assert.deepEqual(extTools(await source.list()).sort(), ["count_rx", "echo_rx"]);
    const r = await source.call("echo_rx", { text: "x" });
    assert.equal(r.isError, true);
    assert.match(text(r), /LOCK_MISMATCH|toolhost\.lock/);
    assert.deepEqual(server.calls, [], "the drifted tool was not called");
    // The unchanged tool still runs, now from the live, verified list.
    assert.equal(text(await source.call("count_rx", {})), "1");
  } finally {
    await source.close();
    await server.close();
    await tmp.cleanup();
  }
});

Deno.test("without a lock, listing starts the server as before", async () => {
  const server = await startRemoteServer();
  const { tmp, open } = await setup(server, false);
  const source = await open();
  try {
    assert.deepEqual(extTools(await source.list()).sort(), ["count_rx", "echo_rx"]);
    assert.ok(server.requests > 0);
  } finally {
    await source.close();
    await server.close();
    await tmp.cleanup();
  }
});

Deno.test("tools list shows a locked extension's tools, marked, without starting it", async () => {
  const server = await startRemoteServer();
  const { tmp } = await setup(server, true);
  try {
    const r = await runCapture(["tools", "list", "--eval", "app/review", "--repo", tmp.root]);
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /echo_rx\s+\[extension rx\] Echo\./);
    assert.match(r.out, /count_rx\s+\[extension rx\]/);
    assert.equal(server.requests, 0);
    const j = await runCapture([
      "tools",
      "list",
      "--eval",
      "app/review",
      "--repo",
      tmp.root,
      "--json",
    ]);
    const out = JSON.parse(j.out);
    assert.deepEqual(
      out.extensionTools.map((t: { name: string; extension: string }) => [t.name, t.extension])
        .sort(),
      [["count_rx", "rx"], ["echo_rx", "rx"]],
    );
    Deno.removeSync(`${tmp.root}/toolhost.lock`);
    const unlocked = await runCapture([
      "tools",
      "list",
      "--eval",
      "app/review",
      "--repo",
      tmp.root,
    ]);
    assert.match(unlocked.out, /the tools of extension\(s\) rx/);
    assert.equal(server.requests, 0);
  } finally {
    await server.close();
    await tmp.cleanup();
  }
});

Deno.test("a lock whose listing does not match its digests is refused", async () => {
  const server = await startRemoteServer();
  const { tmp } = await setup(server, true);
  try {
    const path = `${tmp.root}/toolhost.lock`;
    const lock = JSON.parse(Deno.readTextFileSync(path));
    lock.evals["app/review"].extensions.rx.tools.echo.listing.description = "Do evil.";
    Deno.writeTextFileSync(path, JSON.stringify(lock));
    const ws = await loadWorkspace(tmp.root);
    await assert.rejects(
      () => Registry.open(ws, "app/review", { stateDir: `${tmp.root}/.state`, env: {} }),
      /listing does not match its digests/,
    );
  } finally {
    await server.close();
    await tmp.cleanup();
  }
});
