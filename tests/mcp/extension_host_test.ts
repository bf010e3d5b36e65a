/**
 * ExtensionHost against the fixture MCP server (tests/fixtures/mcp/fixture_server.ts):
 * publishing names, admission, envelopes, images, cancellation, timeouts and
 * process-group cleanup.
 */
import assert from "node:assert/strict";
import { ExtensionHost } from "../../lib/extensions/host.ts";
import { checkExtensions } from "../../lib/extensions/readiness.ts";
import { loadWorkspace } from "../../lib/workspace/load_workspace.ts";
import type { Workspace } from "../../lib/workspace/types.ts";
import { tempWorkspace } from "../helpers/workspace.ts";
import { alive, extensionToml, fixtureServerArgs, groupMembers, waitFor } from "./_helpers.ts";

async function fixtureWorkspace(timeoutMs = 30000, extraEnv: Record<string, string> = {}) {
  const tmp = await tempWorkspace("", {
    "app/README.md": "# app\n",
    "out/r1.json": '{"a":1}',
    "app/secret.json": "{}",
  });
  const toml =
    `[artifacts.app]\npath = "app"\n\n[artifacts.app.evals.review]\naudience = "agent"\nextensions = ["fx"]\n` +
    extensionToml("fx", {
      command: "deno",
      args: fixtureServerArgs(),
      artifact_roots: ["out"],
      timeout_ms: timeoutMs,
      // Starting the server may take long on a loaded machine; the per-request deadline
      // under test is timeout_ms alone.
      connect_timeout_ms: 120000,
      env: {
        FIXTURE_ARTIFACT: `${tmp.root}/out/r1.json`,
        FIXTURE_OUTSIDE: `${tmp.root}/app/secret.json`,
        FIXTURE_PIDFILE: `${tmp.root}/grandchild.pid`,
        ...extraEnv,
      },
    });
  Deno.writeTextFileSync(`${tmp.root}/toolhost.toml`, toml);
  const ws: Workspace = await loadWorkspace(tmp.root);
  return { tmp, ws };
}

const text = (r: { content: unknown[] }) => (r.content[0] as { text: string }).text;

Deno.test("extension host: lists, admits, renders envelopes, stops the whole group", async () => {
  const { tmp, ws } = await fixtureWorkspace();
  const logs: string[] = [];
  const host = ExtensionHost.forEval(ws, "app/review", {
    log: (l) => logs.push(l),
    reserved: new Set(["image_fx"]),
  });
  try {
    const names = (await host.list()).map((t) => t.name).sort();
    assert.deepEqual(names, ["echo_fx", "envelope_fx", "sleep_fx"]);
    assert.ok(logs.some((l) => /image_fx` is taken/.test(l)), logs.join("\n"));
    assert.ok(logs.some((l) => /not a valid MCP tool name/.test(l)), logs.join("\n"));

    // Admission against the server's own schema: maxLength 10.
    assert.deepEqual(await host.call("echo_fx", { text: "0123456789" }), {
      content: [{ type: "text", text: "0123456789" }],
      isError: false,
    });
    const over = await host.call("echo_fx", { text: "0123456789a" });
    assert.equal(over.isError, true);
    assert.doesNotMatch(text(over), /0123456789a/);
    assert.equal((await host.call("echo_fx", { text: "x", extra: 1 })).isError, true);
    assert.equal((await host.call("echo_fx", "not an object")).isError, true);

    // odek envelopes: rendered inside the roots, refused outside, malformed refused.
    const ok = await host.call("envelope_fx", { variant: "ok" });
    assert.equal(ok.isError, false, text(ok));
    assert.match(
      text(ok),
      /^2 results\n\[artifact\] id="r1" type="application\/json" size=7 bytes/,
    );
    assert.doesNotMatch(text(ok), new RegExp(tmp.root));
    const escape = await host.call("envelope_fx", { variant: "escape" });
    assert.equal(escape.isError, true);
    assert.match(text(escape), /outside-roots/);
    assert.doesNotMatch(text(escape), new RegExp(tmp.root));
    const malformed = await host.call("envelope_fx", { variant: "malformed" });
    assert.equal(malformed.isError, true);
    assert.match(text(malformed), /malformed/);

    assert.equal((await host.call("nope_fx", {})).isError, true);
  } finally {
    const record = host.servers[0].record!;
    const grandchild = Number(Deno.readTextFileSync(`${tmp.root}/grandchild.pid`));
    assert.equal(alive(grandchild), true);
    await host.close();
    assert.deepEqual(groupMembers(record.pgid), []);
    assert.equal(await waitFor(() => !alive(grandchild)), true);
    await tmp.cleanup();
  }
});

Deno.test("extension host: cancellation and the per-request deadline", async () => {
  const { tmp, ws } = await fixtureWorkspace(2000);
  const host = ExtensionHost.forEval(ws, "app/review");
  try {
    await host.list();
    const ctl = new AbortController();
    const pending = host.call("sleep_fx", { ms: 60000 }, { signal: ctl.signal });
    setTimeout(() => ctl.abort(), 100);
    const cancelled = await pending;
    assert.deepEqual(cancelled.isError, true);
    assert.match(text(cancelled), /cancelled/);
    const late = await host.call("sleep_fx", { ms: 60000 });
    assert.equal(late.isError, true);
    assert.match(text(late), /did not answer within 2000 ms/);
    assert.equal((await host.call("sleep_fx", { ms: 0 })).isError, false);
  } finally {
    await host.close();
    await tmp.cleanup();
  }
});

Deno.test("extension readiness: a ready server and one that cannot start", async () => {
  const { tmp, ws } = await fixtureWorkspace();
  try {
    const [r] = await checkExtensions(ws, "app/review");
    assert.deepEqual(r, {
      name: "fx",
      started: true,
      initialized: true,
      toolsListed: true,
      toolCount: 5,
    });
    const toml = Deno.readTextFileSync(`${tmp.root}/toolhost.toml`).replace(
      'command = "deno"',
      'command = "no-such-program-xyz"',
    );
    Deno.writeTextFileSync(`${tmp.root}/toolhost.toml`, toml);
    const [bad] = await checkExtensions(await loadWorkspace(tmp.root), "app/review");
    assert.equal(bad.started, false);
    assert.equal(bad.toolsListed, false);
    assert.match(bad.error!, /cannot start: the command was not found on PATH/);
  } finally {
    await tmp.cleanup();
  }
});

Deno.test("extension host: a tool nested past 128 levels is left out, the rest listed", async () => {
  // 127 and 128 levels are kept, 129 and 5000 (deep enough to overflow a recursive walk)
  // are left out; the listing, the lock hashes and the calls keep working.
  const { tmp, ws } = await fixtureWorkspace(30000, { FIXTURE_DEEP: "127,128,129,5000" });
  const host = ExtensionHost.forEval(ws, "app/review", { log: () => {} });
  try {
    const names = (await host.list()).map((t) => t.name).sort();
    assert.deepEqual(names, [
      "deep127_fx",
      "deep128_fx",
      "echo_fx",
      "envelope_fx",
      "image_fx",
      "sleep_fx",
    ]);
    assert.equal(text(await host.call("echo_fx", { text: "hi" })), "hi");
    assert.equal((await host.call("deep5000_fx", {})).isError, true);
  } finally {
    await host.close();
    await tmp.cleanup();
  }
});

Deno.test("extension host: descriptions are cleaned, nonblank and at most 4000 units", async () => {
  const { tmp, ws } = await fixtureWorkspace(30000, { FIXTURE_ODD_DESCRIPTIONS: "1" });
  const host = ExtensionHost.forEval(ws, "app/review", { log: () => {} });
  try {
    const d = new Map((await host.list()).map((t) => [t.name, t.description]));
    assert.equal(d.get("blank_fx"), "Tool `blank` of extension `fx`.");
    assert.equal(d.get("nodesc_fx"), "Tool `nodesc` of extension `fx`.");
    assert.equal(d.get("ctl_fx"), "abred");
    assert.equal(d.get("long_fx"), "d".repeat(4000));
  } finally {
    await host.close();
    await tmp.cleanup();
  }
});
