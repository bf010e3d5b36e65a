/**
 * `toolhost extensions import FILE`: Claude Desktop / Cursor / VS Code / Codex configs
 * appended as `[extensions.*]` text (comments kept), secrets never written (env-var
 * references instead, named in the report), names taken skipped, a result that would
 * not load rolled back byte for byte, bounded input, and `--help` with an example.
 */

import assert from "node:assert/strict";
import { loadWorkspace } from "../../lib/workspace/load_workspace.ts";
import { extensionsOf } from "../../lib/workspace/parse_extensions.ts";
import { tempWorkspace } from "../helpers/workspace.ts";
import { runCapture } from "../helpers/cli.ts";

const BASE = `# my workspace — keep this comment
[artifacts.app]
path = "app"   # trailing comment

[artifacts.app.evals.review]
audience = "agent"
`;

async function ws(extra = "") {
  return await tempWorkspace(BASE + extra, { "app/README.md": "# app\n" });
}

const SECRET = "ghp_0123456789abcdefghijABCDEFGHIJ0123";

Deno.test("a Claude Desktop / Cursor config is appended as text; secrets never written", async () => {
  await using tmp = await ws();
  const cfg = `${tmp.root}/claude_desktop_config.json`;
  Deno.writeTextFileSync(
    cfg,
    JSON.stringify({
      mcpServers: {
        "GitHub": {
          command: "npx",
          args: ["-y", "@modelcontextprotocol/server-github"],
          env: { GITHUB_PERSONAL_ACCESS_TOKEN: SECRET, LOG_LEVEL: "warn" },
        },
        linear: {
          url: "https://mcp.linear.app/mcp",
          headers: { Authorization: `Bearer ${SECRET}`, "X-Team": "core" },
        },
        insecure: { url: "http://example.com/mcp" },
      },
    }),
  );
  const r = await runCapture(["extensions", "import", cfg, "--repo", tmp.root]);
  assert.equal(r.code, 0, r.err);
  const text = Deno.readTextFileSync(`${tmp.root}/toolhost.toml`);
  assert.ok(text.startsWith(BASE), "the manifest's own text (and comments) stay");
  assert.doesNotMatch(text, new RegExp(SECRET));
  assert.doesNotMatch(r.out + r.err, new RegExp(SECRET));
  const decls = extensionsOf(await loadWorkspace(tmp.root)).decls;
  assert.deepEqual([...decls.keys()], ["github", "linear"]);
  assert.deepEqual(decls.get("github")!.env, { LOG_LEVEL: "warn" });
  assert.equal(decls.get("linear")!.remote?.bearerTokenEnvVar, "LINEAR_TOKEN");
  assert.deepEqual(decls.get("linear")!.remote?.httpHeaders, { "X-Team": "core" });
  assert.match(r.out, /GITHUB_PERSONAL_ACCESS_TOKEN, LINEAR_TOKEN/);
  assert.match(r.out, /skipped `insecure`: its url is not https/);
  // Imported under another name than the client's: the report says so.
  assert.match(r.out, /github: renamed from "GitHub": extension names are lowercase/);
  assert.doesNotMatch(r.out, /linear: renamed/);
});

Deno.test("VS Code servers (JSONC) and ${env:X} references", async () => {
  await using tmp = await ws();
  const cfg = `${tmp.root}/mcp.json`;
  Deno.writeTextFileSync(
    cfg,
    `{
  // VS Code allows comments
  "servers": {
    "remote": {
      "type": "http",
      "url": "https://h.example/mcp",
      "headers": { "Authorization": "Bearer \${env:REMOTE_PAT}", "X-Key": "\${input:key}" },
    },
  },
}`,
  );
  const r = await runCapture(["extensions", "import", cfg, "--repo", tmp.root]);
  assert.equal(r.code, 0, r.err);
  const d = extensionsOf(await loadWorkspace(tmp.root)).decls.get("remote")!;
  assert.equal(d.remote?.bearerTokenEnvVar, "REMOTE_PAT");
  assert.deepEqual(d.remote?.envHttpHeaders, { "X-Key": "REMOTE_X_KEY" });
});

Deno.test("a Codex config.toml moves over with its own key names", async () => {
  await using tmp = await ws();
  const cfg = `${tmp.root}/config.toml`;
  Deno.writeTextFileSync(
    cfg,
    `[mcp_servers.docs]
command = "npx"
args = ["-y", "docs-server"]
enabled_tools = ["search"]
startup_timeout_sec = 20
cwd = "/somewhere"

[mcp_servers.tracker]
url = "https://t.example/mcp"
bearer_token_env_var = "TRACKER_TOKEN"
env_http_headers = { "X-Org" = "TRACKER_ORG" }
`,
  );
  const r = await runCapture(["extensions", "import", cfg, "--repo", tmp.root]);
  assert.equal(r.code, 0, r.err);
  const decls = extensionsOf(await loadWorkspace(tmp.root)).decls;
  assert.deepEqual(decls.get("docs")!.enabledTools, ["search"]);
  assert.equal(decls.get("docs")!.connectTimeoutMs, 20000);
  assert.equal(decls.get("tracker")!.remote?.bearerTokenEnvVar, "TRACKER_TOKEN");
  assert.match(r.out, /docs: `cwd` has no toolhost equivalent/);
});

Deno.test("taken names are skipped; a result that would not load is rolled back", async () => {
  await using tmp = await ws(`\n[extensions.fs]\ncommand = "x"\n`);
  const cfg = `${tmp.root}/c.json`;
  Deno.writeTextFileSync(cfg, JSON.stringify({ mcpServers: { fs: { command: "y" } } }));
  const r = await runCapture(["extensions", "import", cfg, "--repo", tmp.root]);
  assert.equal(r.code, 0);
  assert.match(r.out, /skipped `fs`: the name `fs` is already declared/);

  // An args list of numbers passes the mapping but not the manifest: nothing changes.
  const before = Deno.readTextFileSync(`${tmp.root}/toolhost.toml`);
  Deno.writeTextFileSync(cfg, JSON.stringify({ mcpServers: { bad: { command: "x", args: [1] } } }));
  const bad = await runCapture(["extensions", "import", cfg, "--repo", tmp.root]);
  assert.equal(bad.code, 1);
  assert.match(bad.err, /would make toolhost.toml invalid, so nothing was changed/);
  assert.match(bad.err, /extensions\.bad\.args/);
  assert.equal(Deno.readTextFileSync(`${tmp.root}/toolhost.toml`), before);
});

Deno.test("bad files: clear errors, bounded, exit 2", async () => {
  await using tmp = await ws();
  const cases: [string, string, RegExp][] = [
    ["a.json", "{not json", /is not valid JSON/],
    ["b.json", '{"other": {}}', /has no "mcpServers"/],
    ["c.toml", "[x]\n", /has no \[mcp_servers.NAME\] table/],
    ["d.json", " ".repeat(1024 * 1024 + 1), /larger than 1 MiB/],
  ];
  for (const [name, text, re] of cases) {
    Deno.writeTextFileSync(`${tmp.root}/${name}`, text);
    const r = await runCapture(["extensions", "import", `${tmp.root}/${name}`, "--repo", tmp.root]);
    assert.equal(r.code, 2, name);
    assert.match(r.err, re, name);
  }
  const missing = await runCapture([
    "extensions",
    "import",
    `${tmp.root}/nope.json`,
    "--repo",
    tmp.root,
  ]);
  assert.equal(missing.code, 2);
  assert.match(missing.err, /cannot read/);
});

Deno.test("--dry-run prints the text and changes nothing; --help has an example", async () => {
  await using tmp = await ws();
  const cfg = `${tmp.root}/c.json`;
  Deno.writeTextFileSync(cfg, JSON.stringify({ mcpServers: { fs: { command: "npx" } } }));
  const r = await runCapture(["extensions", "import", cfg, "--dry-run", "--repo", tmp.root]);
  assert.equal(r.code, 0);
  assert.match(r.out, /\[extensions\.fs\]\ncommand = "npx"/);
  assert.equal(Deno.readTextFileSync(`${tmp.root}/toolhost.toml`), BASE);
  const help = await runCapture(["extensions", "import", "--help"]);
  assert.match(help.out, /Example[s]?:\n\s+toolhost extensions import/);
});
