/**
 * The MCP Inspector's CLI mode (a client no one here wrote, pinned) lists and calls the
 * tools of `toolhost serve`, over stdio (from an `mcpServers` config file) and over
 * Streamable HTTP. Runs `npx -y`: the first run downloads the Inspector from npm.
 */
import assert from "node:assert/strict";
import { tempWorkspace } from "../helpers/workspace.ts";
import { E2E_EVAL, E2E_FILES, e2eToml, INSPECTOR, REPO, serveArgs, waitFor } from "./_helpers.ts";

async function inspector(args: string[], env: Record<string, string> = {}) {
  const out = await new Deno.Command("npx", {
    args: ["-y", INSPECTOR, "--cli", ...args],
    env: { MCP_INSPECTOR_SECRET_STORE: "memory", ...env },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stdout = new TextDecoder().decode(out.stdout);
  assert.equal(out.code, 0, `${stdout}\n${new TextDecoder().decode(out.stderr)}`);
  return JSON.parse(stdout);
}

Deno.test("MCP Inspector CLI: tools/list and tools/call over stdio", async () => {
  await using tmp = await tempWorkspace("", E2E_FILES);
  Deno.writeTextFileSync(`${tmp.root}/toolhost.toml`, e2eToml(tmp.root));
  const config = `${tmp.root}/mcp.json`;
  Deno.writeTextFileSync(
    config,
    JSON.stringify({
      mcpServers: {
        toolhost: {
          command: "deno",
          args: serveArgs("--eval", E2E_EVAL, "--repo", tmp.root),
          env: { TEST_PIDDIR: tmp.root, PATH: Deno.env.get("PATH") ?? "" },
        },
      },
    }),
  );
  const listed = await inspector([
    "--config",
    config,
    "--server",
    "toolhost",
    "--method",
    "tools/list",
  ]);
  const names = listed.tools.map((t: { name: string }) => t.name);
  assert.ok(names.includes("info_app") && names.includes("read_app"), `${names}`);
  const called = await inspector([
    "--config",
    config,
    "--server",
    "toolhost",
    "--method",
    "tools/call",
    "--tool-name",
    "info_app",
    "--tool-arg",
    "name=x",
  ]);
  assert.deepEqual(called.structuredContent, { greeting: "hello", n: 2 });
  assert.equal(called.isError, false);
});

Deno.test("MCP Inspector CLI: tools/list over Streamable HTTP", async () => {
  await using tmp = await tempWorkspace("", E2E_FILES);
  Deno.writeTextFileSync(`${tmp.root}/toolhost.toml`, e2eToml(tmp.root));
  const child = new Deno.Command(Deno.execPath(), {
    args: serveArgs("--eval", E2E_EVAL, "--repo", tmp.root, "--http", "127.0.0.1:0"),
    env: { TEST_PIDDIR: tmp.root },
    cwd: REPO,
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  let log = "";
  const pump = (async () => {
    for await (const chunk of child.stderr.pipeThrough(new TextDecoderStream())) log += chunk;
  })();
  try {
    // A cap on a condition, not a deadline: serve starts whenever a busy machine lets it.
    assert.ok(await waitFor(() => /on http:\S+/.test(log), 120_000), log);
    const url = /on (http:\S+)/.exec(log)![1];
    const listed = await inspector([url, "--transport", "http", "--method", "tools/list"]);
    assert.ok(listed.tools.some((t: { name: string }) => t.name === "read_app"));
    const called = await inspector([
      url,
      "--transport",
      "http",
      "--method",
      "tools/call",
      "--tool-name",
      "read_app",
      "--tool-arg",
      "path=README.md",
    ]);
    assert.equal(called.isError, false);
  } finally {
    child.kill("SIGTERM");
    assert.equal((await child.status).code, 0); // a completed SIGTERM drain
    await pump;
  }
});
