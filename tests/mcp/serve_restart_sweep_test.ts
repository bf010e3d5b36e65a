/**
 * `kill -9` of `toolhost serve` mid-call, then the MCP client starts `serve` again (as
 * clients do on every launch), on a workspace without tool sessions: the killed call's
 * process group — a leader that ignores SIGTERM and a `setsid` child — must not outlive
 * it. The restarted `serve` sweeps the state directory without being asked (before,
 * nothing but a session start or a manual `toolhost sweep` did, so such processes ran for
 * ever), and a bystander process of the same user is left alone.
 */

import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client";
// @ts-types="@modelcontextprotocol/sdk/client/stdio"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { tempWorkspace } from "../helpers/workspace.ts";
import { STUCK_SCRIPT as STUCK, STUCK_TOML as TOML } from "../helpers/stuck_call.ts";
import { alive, readPid, serveArgs, waitFor } from "./_helpers.ts";

function line(o: unknown): Uint8Array {
  return new TextEncoder().encode(`${JSON.stringify(o)}\n`);
}

Deno.test("serve restarted after kill -9: the killed call's processes are swept, a bystander is not", async () => {
  await using tmp = await tempWorkspace(TOML, {
    "app/tools/stuck.sh": { text: STUCK, mode: 0o755 },
  });
  const env = { ...Deno.env.toObject(), PIDDIR: tmp.root };
  const bystander = new Deno.Command("sleep", { args: ["600"], stdout: "null", stderr: "null" })
    .spawn();
  const first = new Deno.Command("deno", {
    args: serveArgs("--eval", "app/review", "--repo", tmp.root),
    env,
    stdin: "piped",
    stdout: "null",
    stderr: "null",
  }).spawn();
  let leader = 0;
  let child = 0;
  try {
    const w = first.stdin.getWriter();
    await w.write(line({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: {
        protocolVersion: "2025-06-18",
        capabilities: {},
        clientInfo: { name: "t", version: "1" },
      },
    }));
    await w.write(line({ jsonrpc: "2.0", method: "notifications/initialized" }));
    await w.write(line({
      jsonrpc: "2.0",
      id: 2,
      method: "tools/call",
      params: { name: "stuck_app", arguments: {} },
    }));
    leader = await readPid(`${tmp.root}/leader.pid`);
    child = await readPid(`${tmp.root}/child.pid`);
    assert.ok(alive(leader) && alive(child), "the call runs");
  } finally {
    first.kill("SIGKILL");
    await first.status;
  }
  const transport = new StdioClientTransport({
    command: "deno",
    args: serveArgs("--eval", "app/review", "--repo", tmp.root),
    env,
    stderr: "pipe",
  });
  const client = new Client({ name: "restart", version: "1" });
  try {
    await client.connect(transport);
    assert.ok((await client.listTools()).tools.some((t) => t.name === "hi_app"));
    const gone = await waitFor(() => !alive(leader) && !alive(child), 120_000);
    assert.equal(gone, true, "the killed serve's call outlived the restart");
    assert.equal(alive(bystander.pid), true, "a bystander was signalled");
  } finally {
    await client.close();
    for (const p of [leader, child]) {
      try {
        if (alive(p)) Deno.kill(p, "SIGKILL");
      } catch { /* gone */ }
    }
    bystander.kill("SIGKILL");
    await bystander.status;
  }
});
