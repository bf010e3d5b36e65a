/**
 * The README as a test, on a machine with Node.js and no deno: `deno task install --prefix`
 * installs `toolhost` into a temporary prefix, then — with a PATH of that prefix's bin, a
 * folder holding only `node`, and the system programs without deno/node/npm —
 *
 * - the "Five minutes" shell block runs verbatim, line by line in one `sh -e`, in an empty
 *   temporary folder. `$EDITOR` is set to a scripted edit (it appends a comment line to the
 *   file it is given), so the `$EDITOR ...` line also runs verbatim; `serve` gets an empty
 *   stdin and exits at its end, as it does when an MCP client goes away;
 * - the manifest example ("The manifest") loads over a copy of examples/ and `tools check`
 *   reports its eval ready; its grep tool returns a result, not an error, for no match;
 * - the MCP client config ("Use toolhost from an MCP client") has the `mcpServers` shape, and
 *   its command and args (with `/path/to/repo` replaced) start a server an MCP client lists
 *   tools from;
 * - the bundled example (examples/) runs its web session and json tool with no deno, and
 *   with no node `tools check` reports the harness not ready, naming `node`.
 *
 * Uninstall then removes the command. Bounded by the work itself (no clock); a missing
 * SEA-capable node skips with a printed reason.
 *
 * @module
 */

import assert from "node:assert/strict";
import { cpSync, existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client";
// @ts-types="@modelcontextprotocol/sdk/client/stdio"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { findNode } from "../../scripts/build_sea.ts";
import { distWorkspace } from "../dist/_workspace.ts";
import { blocksUnder, nodeOnlyDir, ROOT } from "./_readme.ts";

interface Ran {
  code: number;
  out: string;
  err: string;
}

function node(): string | undefined {
  try {
    return findNode().path;
  } catch (e) {
    console.log(`SKIP README path tests: no SEA-capable node (${(e as Error).message})`);
    return undefined;
  }
}

const NODE = node();

async function sh(script: string, cwd: string, env: Record<string, string>): Promise<Ran> {
  const o = await new Deno.Command("/bin/sh", {
    args: ["-euc", script],
    cwd,
    clearEnv: true,
    env,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const dec = new TextDecoder();
  return { code: o.code, out: dec.decode(o.stdout), err: dec.decode(o.stderr) };
}

async function task(args: string[]): Promise<Ran> {
  const o = await new Deno.Command(Deno.execPath(), {
    args: ["task", "-q", ...args],
    cwd: ROOT,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const dec = new TextDecoder();
  return { code: o.code, out: dec.decode(o.stdout), err: dec.decode(o.stderr) };
}

/** The scripted `$EDITOR`: appends a comment to the file, as a person's edit would. */
const EDITOR = `#!/bin/sh
printf '# edited by the README test\\n' >> "$1"
`;

Deno.test({
  name: "README: install task, Five minutes, manifest, MCP config and the example, without deno",
  ignore: NODE === undefined,
  fn: async (t) => {
    await using ws = await distWorkspace(); // ws.path: system programs without deno or node
    const dir = ws.dir;
    const prefix = join(dir, "prefix");
    const nodeDir = nodeOnlyDir(dir, NODE!);
    const home = join(dir, "home");
    const editor = join(dir, "editor.sh");
    writeFileSync(editor, EDITOR, { mode: 0o755 });
    const sys = join(dir, "sys");
    const env = {
      PATH: `${join(prefix, "bin")}:${nodeDir}:${sys}`,
      HOME: home,
      EDITOR: editor,
      NO_COLOR: "1",
    };

    await t.step(
      "deno task install --prefix DIR installs bin/toolhost (twice: idempotent)",
      async () => {
        // The Install section's own line, with its placeholder DIR filled in.
        const line = blocksUnder(/^Install/, "sh")[0].split("\n")
          .find((l) => l.includes("task install --prefix DIR"));
        assert.ok(line, "the Install section shows `task install --prefix DIR`");
        const words = line.replace(/#.*$/, "").trim().split(/\s+/);
        assert.deepEqual(words.slice(0, 4), ["npx", "-y", "deno@2.9.6", "task"]);
        const args = words.slice(4).map((w) => w === "DIR" ? prefix : w);
        for (let i = 0; i < 2; i++) {
          const r = await task(args);
          assert.equal(r.code, 0, r.err);
          assert.match(r.err, /installed toolhost \S+ at .*prefix\/bin\/toolhost/);
          assert.match(r.err, /is not on your PATH/); // the test's prefix is not on PATH
        }
        const v = await sh("command -v toolhost && toolhost --version", dir, env);
        assert.equal(v.code, 0, v.err);
        assert.equal(v.out.split("\n")[0], join(prefix, "bin", "toolhost"));
        assert.equal((await sh("command -v deno || echo none", dir, env)).out.trim(), "none");
      },
    );

    await t.step("the Five minutes block runs verbatim", async () => {
      const [block] = blocksUnder(/^Five minutes/, "sh");
      assert.match(block, /toolhost init/);
      const work = join(dir, "five");
      Deno.mkdirSync(work);
      const r = await sh(block, work, env);
      assert.equal(r.code, 0, `exit ${r.code}\nstdout:\n${r.out}\nstderr:\n${r.err}`);
      assert.match(r.out, /"isError":\s*false/); // the tools call line printed a success
      const edited = Deno.readTextFileSync(join(work, "my-tools", "tools", "finder.sh"));
      assert.match(edited, /# edited by the README test\n$/); // the $EDITOR line ran
    });

    await t.step("the manifest example loads and its eval is ready", async () => {
      const [toml] = blocksUnder(/^The manifest/, "toml");
      const repo = join(dir, "manifest");
      cpSync(join(ROOT, "examples"), repo, { recursive: true });
      writeFileSync(join(repo, "toolhost.toml"), toml);
      const check = await sh("toolhost tools check app/review", repo, env);
      assert.equal(check.code, 0, `${check.out}\n${check.err}`);
      const search = await sh(
        `toolhost tools call search_app --eval app/review --args '{"query":"no such text zq"}'`,
        repo,
        env,
      );
      assert.equal(search.code, 0, search.err);
      assert.equal(JSON.parse(search.out).isError, false); // grep's exit 1: no match, no error
    });

    await t.step("the MCP client config starts a server a client lists tools from", async () => {
      const [json] = blocksUnder(/MCP client/, "json");
      const config = JSON.parse(json) as {
        mcpServers: Record<string, { command: string; args: string[] }>;
      };
      const servers = Object.values(config.mcpServers);
      assert.equal(servers.length, 1);
      const { command, args } = servers[0];
      assert.equal(command, "toolhost");
      const repo = join(dir, "mcp");
      cpSync(join(ROOT, "examples"), repo, { recursive: true });
      const transport = new StdioClientTransport({
        command: join(prefix, "bin", command), // what a client finds on PATH
        args: args.map((a) => a === "/path/to/repo" ? repo : a),
        env,
        stderr: "ignore",
      });
      const client = new Client({ name: "readme-test", version: "0.0.0" });
      await client.connect(transport);
      try {
        const names = (await client.listTools()).tools.map((x) => x.name);
        assert.ok(names.includes("read_app"), names.join(" "));
      } finally {
        await client.close();
      }
    });

    await t.step("the bundled example's session and json tool run without deno", async () => {
      const repo = join(dir, "example");
      cpSync(join(ROOT, "examples"), repo, { recursive: true });
      const script = `
        toolhost tools call counter_add_app --eval app/review --args '{"by":4}'
        toolhost tools call stats_app --eval app/review --args '{"file":"README.md"}'`;
      const r = await sh(script, repo, env);
      assert.equal(r.code, 0, `${r.out}\n${r.err}`);
      const [add, stats] = r.out.trim().split("\n").map((l) => JSON.parse(l));
      assert.equal(add.isError, false, JSON.stringify(add));
      assert.match(add.content[0].text, /The counter is now 4\./);
      assert.equal(stats.isError, false, JSON.stringify(stats));
      const noNode = { ...env, PATH: `${join(prefix, "bin")}:${sys}` };
      const check = await sh("toolhost tools check app/review", repo, noNode);
      assert.equal(check.code, 1, check.out);
      assert.match(check.out, /web_app\s+not ready/);
      assert.match(check.out, /counter_add_app\s+not ready\s+executable: .*interpreter `node`/);
    });

    await t.step("deno task uninstall --prefix DIR removes it", async () => {
      const r = await task(["uninstall", "--prefix", prefix]);
      assert.equal(r.code, 0, r.err);
      assert.equal(existsSync(join(prefix, "bin", "toolhost")), false);
    });
  },
});

Deno.test("README: blocksUnder fails when the section or its block is missing", () => {
  assert.throws(() => blocksUnder(/^No such heading anywhere$/, "sh"), /no section/);
  assert.throws(() => blocksUnder(/^Five minutes/, "rust"), /no ```rust block/);
});
