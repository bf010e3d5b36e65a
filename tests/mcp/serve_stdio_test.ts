/**
 * End to end over stdio with the SDK's own `Client`: `toolhost serve --eval app/review`
 * as a child process. Lists, calls a json tool, a built-in, a session-bound tool twice,
 * envelope tools (registry and extension), progress, cancellation (the tool's process
 * group is gone), and cleanup on disconnect and on SIGTERM.
 */
import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client";
// @ts-types="@modelcontextprotocol/sdk/client/stdio"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { tempWorkspace } from "../helpers/workspace.ts";
import {
  alive,
  E2E_EVAL,
  E2E_FILES,
  e2eToml,
  groupMembers,
  INFO_SCHEMA,
  readPid,
  serveArgs,
  waitFor,
} from "./_helpers.ts";

type Text = { type: string; text: string };

async function connect(root: string) {
  const transport = new StdioClientTransport({
    command: "deno",
    args: serveArgs("--eval", E2E_EVAL, "--repo", root),
    env: { ...Deno.env.toObject(), TEST_PIDDIR: root },
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (c: Uint8Array) => (stderr += new TextDecoder().decode(c)));
  const client = new Client({ name: "e2e", version: "1" });
  const errors: Error[] = [];
  client.onerror = (e) => errors.push(e);
  await client.connect(transport);
  return { client, transport, errors, stderr: () => stderr };
}

async function exitOf(pid: number): Promise<boolean> {
  return await waitFor(() => !alive(pid), 120_000);
}

Deno.test("serve over stdio: list, call, sessions, envelopes, progress, cancel, cleanup", async () => {
  await using tmp = await tempWorkspace("", E2E_FILES);
  Deno.writeTextFileSync(`${tmp.root}/toolhost.toml`, e2eToml(tmp.root));
  const { client, transport, errors, stderr } = await connect(tmp.root);
  const servePid = transport.pid!;
  try {
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name).sort();
    for (
      const n of [
        "count_app",
        "envelope_app",
        "info_app",
        "read_app",
        "slow_app",
        "wait_app",
        "echo_fx",
      ]
    ) {
      assert.ok(names.includes(n), `${n} in ${names}`);
    }
    assert.deepEqual(tools.find((t) => t.name === "info_app")!.inputSchema, INFO_SCHEMA);
    assert.equal(tools.find((t) => t.name === "info_app")!.description, "Info about app.");

    const info = await client.callTool({ name: "info_app", arguments: { name: "x" } });
    assert.deepEqual(info.content, [{ type: "text", text: '{"greeting":"hello","n":2}' }]);
    assert.deepEqual(info.structuredContent, { greeting: "hello", n: 2 });
    assert.equal(info.isError, false);

    const bad = await client.callTool({ name: "info_app", arguments: { name: "x".repeat(21) } });
    assert.equal(bad.isError, true);

    const read = await client.callTool({ name: "read_app", arguments: { path: "README.md" } });
    assert.equal(read.isError, false);
    assert.match((read.content as Text[]).map((b) => b.text).join("\n"), /hello/);

    const c1 = await client.callTool({ name: "count_app", arguments: {} });
    const c2 = await client.callTool({ name: "count_app", arguments: {} });
    assert.deepEqual([c1.structuredContent, c2.structuredContent], [{ count: 1 }, { count: 2 }]);

    const env = await client.callTool({ name: "envelope_app", arguments: {} });
    assert.equal(env.isError, false, JSON.stringify(env));
    assert.match(
      (env.content as Text[])[0].text,
      /^built\n\[artifact\] id="r1" type="application\/json"/,
    );
    assert.doesNotMatch(JSON.stringify(env), new RegExp(tmp.root));
    const ext = await client.callTool({ name: "envelope_fx", arguments: { variant: "ok" } });
    assert.match((ext.content as Text[])[0].text, /^2 results\n\[artifact\] id="r1"/);

    const unknown = await client.callTool({ name: "nope_app", arguments: {} });
    assert.equal(unknown.isError, true);
    assert.match((unknown.content as Text[])[0].text, /no tool `nope_app`/);
    // The hint names every published tool, extensions' too; the name is quoted escaped.
    assert.match((unknown.content as Text[])[0].text, /tools: .*read_app.*echo_fx/);
    const odd = await client.callTool({ name: "x`\u202e", arguments: {} });
    assert.match((odd.content as Text[])[0].text, /no tool `x\\u\{60\}\\u\{202e\}`/);

    const progress: number[] = [];
    const waited = await client.callTool({ name: "wait_app", arguments: {} }, undefined, {
      onprogress: (p) => progress.push(p.progress),
    });
    assert.equal(waited.isError, false);
    assert.ok(progress.length >= 1, "a 2.5 s call sends progress");

    const ctl = new AbortController();
    const slow = client.callTool({ name: "slow_app", arguments: {} }, undefined, {
      signal: ctl.signal,
    });
    const slowPid = await readPid(`${tmp.root}/slow.pid`);
    assert.equal(alive(slowPid), true);
    ctl.abort();
    await assert.rejects(slow);
    assert.equal(await waitFor(() => groupMembers(slowPid).length === 0), true, "slow group gone");
    // The connection still works after a cancel.
    assert.equal(
      (await client.callTool({ name: "info_app", arguments: { name: "y" } })).isError,
      false,
    );
  } finally {
    const harness = await readPid(`${tmp.root}/harness.pids`).catch(() => 0);
    await client.close();
    assert.equal(await exitOf(servePid), true, "serve exits after the client disconnects");
    if (harness) assert.equal(alive(harness), false, "the session harness was stopped");
    const fx = Number(Deno.readTextFileSync(`${tmp.root}/fx_grandchild.pid`));
    assert.equal(await waitFor(() => !alive(fx)), true, "the extension's group was stopped");
    // The process has exited, but its last stderr bytes may not have been read yet.
    await waitFor(() => /cleanup confirmed/.test(stderr()));
    assert.match(stderr(), /cleanup confirmed/);
    assert.deepEqual(errors, [], "stdout carried only protocol messages");
  }
});

for (const sig of ["SIGTERM", "SIGHUP"] as const) {
  Deno.test(`serve over stdio: ${sig} stops the sessions and confirms cleanup`, async () => {
    await using tmp = await tempWorkspace("", E2E_FILES);
    Deno.writeTextFileSync(`${tmp.root}/toolhost.toml`, e2eToml(tmp.root));
    const { client, transport, stderr } = await connect(tmp.root);
    const servePid = transport.pid!;
    try {
      const c1 = await client.callTool({ name: "count_app", arguments: {} });
      assert.deepEqual(c1.structuredContent, { count: 1 });
      const harness = await readPid(`${tmp.root}/harness.pids`);
      assert.equal(alive(harness), true);
      Deno.kill(servePid, sig);
      assert.equal(await exitOf(servePid), true);
      assert.equal(alive(harness), false);
      const done = new RegExp(`${sig}.*\\n(.*\\n)*.*cleanup confirmed`);
      // The process has exited, but its last stderr bytes may not have been read yet.
      await waitFor(() => done.test(stderr()));
      assert.match(stderr(), done);
    } finally {
      await client.close().catch(() => {});
    }
  });
}
