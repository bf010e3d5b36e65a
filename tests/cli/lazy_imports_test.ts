/**
 * Start-up is paid per command: the modules the CLI entry loads before it knows the command
 * (everything `lib/cli/main.ts` imports statically) must not bring ajv, the MCP SDK or the
 * TOML parser, `tools check` must not bring the MCP SDK, and `serve` loads the SDK only after
 * its first answers. Checked on the static import
 * graph (`deno info --json`), so it does not depend on timing.
 */

import assert from "node:assert/strict";

interface Dep {
  specifier: string;
  code?: { specifier: string };
  isDynamic?: boolean;
}
interface Info {
  roots: string[];
  modules: { specifier: string; dependencies?: Dep[] }[];
  redirects: Record<string, string>;
}

async function info(entry: string): Promise<Info> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", entry],
    cwd: new URL("../../", import.meta.url).pathname,
    stdout: "piped",
    stderr: "inherit",
  }).output();
  assert.ok(out.success, "deno info failed");
  return JSON.parse(new TextDecoder().decode(out.stdout));
}

/** Every module reachable from the entry through static (run-time) imports. */
async function staticClosure(entry: string): Promise<Set<string>> {
  const graph = await info(entry);
  const deps = new Map(graph.modules.map((m) => [m.specifier, m.dependencies ?? []]));
  const resolve = (s: string) => graph.redirects[s] ?? s;
  const root = resolve(graph.roots[0]);
  const seen = new Set<string>([root]);
  const queue = [root];
  while (queue.length > 0) {
    for (const d of deps.get(queue.pop()!) ?? []) {
      if (d.isDynamic || !d.code) continue; // a type-only or dynamic import loads nothing now
      const next = resolve(d.code.specifier);
      if (!seen.has(next)) {
        seen.add(next);
        queue.push(next);
      }
    }
  }
  return seen;
}

function heavy(closure: Set<string>, names: string[]): string[] {
  return [...closure].filter((s) => names.some((n) => s.includes(n)));
}

Deno.test("the CLI entry statically loads no ajv, MCP SDK, TOML parser or command", async () => {
  const closure = await staticClosure("lib/cli/main.ts");
  assert.deepEqual(heavy(closure, ["ajv", "@modelcontextprotocol", "smol-toml", "/commands/"]), []);
  assert.ok([...closure].some((s) => s.includes("commander")), "the graph was not read");
});

Deno.test("`tools check` statically loads no MCP SDK and no registry", async () => {
  const closure = await staticClosure("lib/cli/commands/tools_check.ts");
  assert.deepEqual(heavy(closure, ["@modelcontextprotocol", "/registry/registry.ts"]), []);
  assert.ok([...closure].some((s) => s.includes("smol-toml")), "the graph was not read");
});

Deno.test("`serve` on stdio statically loads no Streamable HTTP stack and no MCP SDK", async () => {
  const closure = await staticClosure("lib/cli/commands/serve.ts");
  assert.deepEqual(heavy(closure, ["/mcp/http.ts", "server/streamableHttp"]), []);
  // stdio answers `initialize` and `tools/list` first, then loads the SDK (stdio_front.ts).
  assert.deepEqual(heavy(closure, ["@modelcontextprotocol", "/mcp/server.ts"]), []);
  assert.ok([...closure].some((s) => s.includes("/mcp/stdio.ts")), "the graph was not read");
});

Deno.test("cli.ts loads no node:* module before it knows the command (Deno's fast paths included)", async () => {
  const closure = await staticClosure("cli.ts");
  assert.deepEqual([...closure].filter((s) => s.startsWith("node:")), []);
  assert.ok([...closure].some((s) => s.endsWith("/lib/pins/host_fs.ts")), "the graph was not read");
});
