/**
 * `@modelcontextprotocol/conformance` (pinned) server scenarios against
 * `toolhost serve --http`, with tests/fixtures/mcp/conformance as the workspace (its
 * published names match the tools the suite calls). Scenarios that do not apply to a
 * server are listed, with reasons, in expected-failures.yml; the suite fails on any other
 * failure and on a listed scenario that passes. The suite needs Node 22 APIs, so it runs
 * under Deno (`deno run npm:...`, no config, no lockfile) — in CI too, as part of
 * `deno task test`, which .ci/run calls. Image, audio, embedded-resource and mixed-content
 * results come from extensions (rich_server.ts), which toolhost passes through.
 */
import assert from "node:assert/strict";
import { REPO, serveArgs, waitFor } from "./_helpers.ts";

const CONFORMANCE = "npm:@modelcontextprotocol/conformance@0.1.16";
const WS = `${REPO}/tests/fixtures/mcp/conformance`;

Deno.test("MCP conformance: every applicable server scenario passes", async () => {
  const state = await Deno.makeTempDir({ prefix: "toolhost_state_" });
  const child = new Deno.Command(Deno.execPath(), {
    args: serveArgs(
      "--eval",
      "text/conformance",
      "--repo",
      WS,
      "--http",
      "127.0.0.1:0",
      "--state-dir",
      state,
    ),
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  let log = "";
  const pump = (async () => {
    for await (const chunk of child.stderr.pipeThrough(new TextDecoderStream())) log += chunk;
  })();
  const out = await Deno.makeTempDir({ prefix: "toolhost_conformance_" });
  try {
    assert.ok(await waitFor(() => /on http:\S+/.test(log), 120_000), log);
    const url = /on (http:\S+)/.exec(log)![1];
    const run = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "-A",
        "--no-config",
        "--no-lock",
        CONFORMANCE,
        "server",
        "--url",
        url,
        "--expected-failures",
        `${WS}/expected-failures.yml`,
        "-o",
        out,
      ],
      cwd: out,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
    const text = new TextDecoder().decode(run.stdout) + new TextDecoder().decode(run.stderr);
    assert.equal(run.code, 0, text.slice(-4000));
    for (
      const s of [
        "tools-list",
        "tools-call-simple-text",
        "tools-call-image",
        "tools-call-audio",
        "tools-call-error",
        "tools-call-with-progress",
        "resources-list",
        "tools-call-embedded-resource",
        "tools-call-mixed-content",
      ]
    ) {
      assert.match(text, new RegExp(`✓ ${s}: \\d+ passed, 0 failed`), s);
    }
  } finally {
    child.kill("SIGTERM");
    await child.status;
    await pump;
    await Deno.remove(out, { recursive: true });
    await Deno.remove(state, { recursive: true });
  }
});
