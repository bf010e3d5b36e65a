/**
 * The MCP client configurations the docs show, checked for shape and for agreeing with
 * each other: the `mcpServers` JSON block (which readme_paths_test.ts also starts), the
 * no-binary form, Claude Code's `claude mcp add`, Codex's `args`, and the Streamable HTTP
 * client entry against its `serve --http` command line. Each inline snippet is taken from
 * the section's code spans, so a doc edit that breaks one fails here.
 *
 * @module
 */

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { blocksUnder, docFiles } from "./_readme.ts";

/** The text of the section whose heading matches, in README.md or docs/. */
function sectionText(heading: RegExp): string {
  for (const file of docFiles()) {
    const text = readFileSync(file, "utf8");
    const m = new RegExp(`^(#{1,6}) (${heading.source}.*)$`, "m").exec(text);
    if (!m) continue;
    const rest = text.slice(m.index + m[0].length);
    const end = new RegExp(`^#{1,${m[1].length}} `, "m").exec(rest);
    return end ? rest.slice(0, end.index) : rest;
  }
  throw new Error(`no section matching ${heading}`);
}

/** The inline code spans of a text, each with its line breaks turned into spaces. */
function spans(text: string): string[] {
  const noBlocks = text.replace(/^```[^\n]*\n[\s\S]*?^```$/gm, "");
  return [...noBlocks.matchAll(/`([^`]+)`/g)].map((m) => m[1].replace(/\n/g, " "));
}

function span(all: string[], start: string): string {
  const found = all.find((s) => s.startsWith(start));
  assert.ok(found, `a code span starting with ${start}`);
  return found;
}

Deno.test("docs: the MCP client configurations have their shapes and agree", () => {
  const [block] = blocksUnder(/Use toolhost from an MCP client/, "json");
  const servers = JSON.parse(block).mcpServers as Record<
    string,
    { command: string; args: string[] }
  >;
  const [[name, main]] = Object.entries(servers);
  assert.equal(main.command, "toolhost");
  assert.deepEqual(main.args.slice(0, 1), ["serve"]);
  assert.ok(main.args.includes("--eval"));

  const all = spans(sectionText(/Use toolhost from an MCP client/));
  const noBinary = JSON.parse(`{${span(all, '"command": "npx"')}}`);
  assert.equal(noBinary.command, "npx");
  assert.deepEqual(noBinary.args.slice(0, 2), ["-y", "deno@2.9.6"]);
  assert.ok(noBinary.args.some((a: string) => a.endsWith("/cli.ts")));
  assert.deepEqual(noBinary.args.slice(-main.args.length), main.args);

  const claude = span(all, "claude mcp add").split(" ");
  assert.equal(claude[3], name);
  assert.deepEqual(claude.slice(claude.indexOf("--") + 1), [main.command, ...main.args]);

  const codex = span(all, "args = [");
  assert.deepEqual(JSON.parse(codex.slice("args = ".length)), main.args);
  assert.ok(all.includes(`[mcp_servers.${name}]`), "Codex's table names the same server");

  const http = span(all, "TOOLHOST_MCP_TOKEN=").split(" ");
  const listen = http[http.indexOf("--http") + 1];
  const client = JSON.parse(span(all, '{"mcpServers"')).mcpServers[name];
  assert.equal(client.url, `http://${listen}/mcp`);
  assert.match(client.headers.Authorization, /^Bearer /);
  assert.equal(http[http.indexOf("--token-env") + 1], http[0].split("=")[0]);
});
