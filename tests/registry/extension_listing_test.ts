/**
 * `Registry.list()` shows extension tools (issue 18), through the public library API
 * (`mod.ts`): with a current toolhost.lock, a lazy extension's tools are listed from the
 * lock (marked with `extension`) without contacting its server, the first
 * `Registry.call` starts it and verifies its live list against the lock, and from then
 * on the listing is the verified live one (a drifted tool neutral and refused). Without
 * a lock, listing starts nothing and shows an extension's tools once it was started. A
 * program swapped since the lock is never started: the call is refused with LOCK_MISMATCH.
 * The server is a real MCP server on loopback that counts the HTTP requests it gets.
 */

import assert from "node:assert/strict";
import { buildLock, loadWorkspace, Registry, type ToolListing, writeLockFile } from "../../mod.ts";
import { tempWorkspace } from "../helpers/workspace.ts";
import { type RemoteServer, startRemoteServer } from "../fixtures/mcp/remote_server.ts";
import { extensionToml, fixtureServerArgs } from "../mcp/_helpers.ts";

function toml(url: string): string {
  return `[artifacts.app]\npath = "app"\n\n[artifacts.app.evals.review]\naudience = "agent"\n` +
    `extensions = ["rx"]\n` +
    extensionToml("rx", { url, timeout_ms: 30000, enabled_tools: ["echo", "count"] });
}

async function withRegistry(
  lock: boolean,
  body: (reg: Registry, server: RemoteServer) => Promise<void>,
): Promise<void> {
  const server = await startRemoteServer();
  const tmp = await tempWorkspace(toml(server.url), { "app/README.md": "# app\n" });
  try {
    const stateDir = `${tmp.root}/.state`;
    const ws = await loadWorkspace(tmp.root);
    if (lock) await writeLockFile(ws, await buildLock(ws, { stateDir, env: {} }));
    server.requests = 0;
    const reg = await Registry.open(ws, "app/review", { stateDir, env: {} });
    try {
      await body(reg, server);
    } finally {
      await reg.close();
    }
  } finally {
    await server.close();
    await tmp.cleanup();
  }
}

const ext = (l: ToolListing[]) => l.filter((t) => t.extension !== undefined);
const text = (r: { content: unknown[] }) => (r.content[0] as { text: string }).text;

Deno.test("Registry.list() shows a locked extension's tools, marked, without starting it", async () => {
  await withRegistry(true, async (reg, server) => {
    const listed = reg.list();
    assert.deepEqual(
      ext(listed).map((t) => [t.name, t.extension]).sort(),
      [["count_rx", "rx"], ["echo_rx", "rx"]],
    );
    assert.equal(listed.find((t) => t.name === "echo_rx")?.description, "Echo.");
    assert.deepEqual(
      listed.find((t) => t.name === "echo_rx")?.inputSchema,
      { type: "object", properties: { text: { type: "string" } } },
    );
    // The eval's own tools are not marked.
    assert.ok(listed.some((t) => t.name === "get_artifact_field" && t.extension === undefined));
    assert.equal(server.requests, 0, "listing from the lock contacted the server");
    // The first call through the library starts the server, verifies it, runs the call.
    assert.equal(text(await reg.call("echo_rx", { text: "lazy" })), "lazy");
    assert.deepEqual(server.calls, ["echo"]);
    assert.deepEqual(ext(reg.list()).map((t) => t.name).sort(), ["count_rx", "echo_rx"]);
  });
});

Deno.test("Registry.list() after the first call: a tool that drifted is neutral and refused", async () => {
  await withRegistry(true, async (reg, server) => {
    server.redescribe = true;
    assert.equal(reg.list().find((t) => t.name === "echo_rx")?.description, "Echo.");
    const r = await reg.call("echo_rx", { text: "x" });
    assert.equal(r.isError, true);
    assert.match(text(r), /LOCK_MISMATCH/);
    assert.deepEqual(server.calls, [], "the drifted tool was not called");
    // The listing is now the verified live one: the drifted tool is listed neutrally.
    const echo = reg.list().find((t) => t.name === "echo_rx");
    assert.ok(echo !== undefined);
    assert.notEqual(echo.description, "Echo.");
    assert.doesNotMatch(echo.description, /Echo/);
    assert.deepEqual(echo.inputSchema, { type: "object" });
    assert.equal(text(await reg.call("count_rx", {})), "1");
  });
});

Deno.test("Registry.list() without a lock starts nothing; a started extension's tools are listed", async () => {
  await withRegistry(false, async (reg, server) => {
    assert.deepEqual(ext(reg.list()), []);
    assert.equal(server.requests, 0, "listing started the server");
    assert.equal(text(await reg.call("echo_rx", { text: "started" })), "started");
    assert.deepEqual(ext(reg.list()).map((t) => [t.name, t.extension]).sort(), [
      ["count_rx", "rx"],
      ["echo_rx", "rx"],
    ]);
  });
});

Deno.test("a program swapped since the lock: listed from the lock, the call refused, never run", async () => {
  const script = (v: string) =>
    `#!/bin/sh\n# ${v}\necho run >> "$(dirname "$0")/ran.log"\n` +
    `exec deno ${fixtureServerArgs().map((a) => `'${a}'`).join(" ")}\n`;
  const toml = `[artifacts.app]\npath = "app"\n\n[artifacts.app.evals.review]\n` +
    `audience = "agent"\nextensions = ["sx"]\n` +
    extensionToml("sx", { command: "./sx.sh", timeout_ms: 60000 });
  const tmp = await tempWorkspace(toml, {
    "app/README.md": "# app\n",
    "sx.sh": { text: script("v1"), mode: 0o755 },
  });
  try {
    const stateDir = `${tmp.root}/.state`;
    const ws = await loadWorkspace(tmp.root);
    await writeLockFile(ws, await buildLock(ws, { stateDir, env: Deno.env.toObject() }));
    Deno.removeSync(`${tmp.root}/ran.log`); // the lock build ran it to list its tools
    Deno.writeTextFileSync(`${tmp.root}/sx.sh`, script("v2"), { mode: 0o755 });
    const reg = await Registry.open(ws, "app/review", { stateDir, env: Deno.env.toObject() });
    try {
      const echo = reg.list().find((t) => t.name === "echo_sx");
      assert.equal(echo?.description, "Echo a short text.", "listed from the reviewed lock");
      const r = await reg.call("echo_sx", { text: "x" });
      assert.equal(r.isError, true);
      assert.match(text(r), /LOCK_MISMATCH/);
      assert.throws(() => Deno.statSync(`${tmp.root}/ran.log`), Deno.errors.NotFound);
    } finally {
      await reg.close();
    }
  } finally {
    await tmp.cleanup();
  }
});
