/**
 * The end-to-end suite every standalone form of the CLI runs (the `deno compile` binary,
 * the Node single-executable, and `deno run` with the compile permission flags): from a
 * temporary folder, against a workspace of `sh` tools, with a PATH that holds neither
 * deno nor node.
 *
 * @module
 */

import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client";
// @ts-types="@modelcontextprotocol/sdk/client/stdio"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { type DistWorkspace, distWorkspace } from "./_workspace.ts";

/** How to start the CLI under test. */
export interface Runner {
  /** Absolute program path. */
  program: string;
  /** Arguments before the CLI's own (e.g. `run --allow-read cli.ts`). */
  prefix: string[];
  /** Extra environment (the rest is cleared except PATH and HOME). */
  env?: Record<string, string>;
}

/** One finished run. */
export interface Ran {
  /** Exit code. */
  code: number;
  /** stdout. */
  out: string;
  /** stderr. */
  err: string;
}

/** The deno.json version. */
export const DENO_JSON_VERSION: string = JSON.parse(
  readFileSync(new URL("../../deno.json", import.meta.url), "utf8"),
).version;

function envFor(ws: DistWorkspace, r: Runner, extra: Record<string, string> = {}) {
  return { PATH: ws.path, HOME: join(ws.dir, "home"), ...r.env, ...extra };
}

/**
 * Run the CLI with `args` from the workspace root, the restricted PATH and a cleared
 * environment.
 *
 * @example
 * ```ts
 * // const { code, out } = await run(ws, runner, ["--version"]);
 * ```
 */
export async function run(
  ws: DistWorkspace,
  r: Runner,
  args: string[],
  opts: { stdin?: string; env?: Record<string, string> } = {},
): Promise<Ran> {
  const child = new Deno.Command(r.program, {
    args: [...r.prefix, ...args],
    cwd: ws.root,
    clearEnv: true,
    env: envFor(ws, r, opts.env),
    stdin: opts.stdin === undefined ? "null" : "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  if (opts.stdin !== undefined) {
    const w = child.stdin.getWriter();
    await w.write(new TextEncoder().encode(opts.stdin));
    await w.close();
  }
  const o = await child.output();
  const dec = new TextDecoder();
  return { code: o.code, out: dec.decode(o.stdout), err: dec.decode(o.stderr) };
}

function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
    return state !== "Z" && state !== "X";
  } catch {
    return false;
  }
}

async function goneSoon(pid: number): Promise<boolean> {
  // A cap on a condition, not a deadline: a busy machine may take a while to reap it.
  for (const end = Date.now() + 120_000; alive(pid) && Date.now() < end;) {
    await new Promise((r) => setTimeout(r, 50));
  }
  return !alive(pid);
}

function callJson(res: Ran): { content: Array<Record<string, unknown>>; isError: boolean } {
  assert.equal(res.code, 0, res.err);
  return JSON.parse(res.out);
}

async function callCases(t: Deno.TestContext, ws: DistWorkspace, r: Runner): Promise<void> {
  const call = (tool: string, args: string) =>
    run(ws, r, ["tools", "call", tool, "--eval", "app/review", "--args", args]);
  await t.step("tools call: json tool", async () => {
    const res = callJson(await call("hello_app", '{"name":"Ada"}'));
    assert.deepEqual(res.content, [
      { type: "text", text: "Hello, Ada" },
      { type: "json", data: { name: "Ada" } },
    ]);
  });
  await t.step("tools call: plain tool keeps shell text literal", async () => {
    const res = callJson(await call("say_app", '{"words":"a b; $(id) `x`"}'));
    assert.deepEqual(res.content, [{ type: "text", text: "said: a b; $(id) `x`\n" }]);
  });
  await t.step("tools call: built-in read", async () => {
    const res = callJson(await call("read_app", '{"path":"README.md"}'));
    assert.match(JSON.stringify(res.content), /The end-to-end test app/);
  });
  await t.step("tools call: session-bound tool starts, answers and is cleaned up", async () => {
    const pidFile = join(ws.dir, "start.pid");
    const res = await run(ws, r, ["tools", "call", "bump_app", "--eval", "app/review"], {
      env: { E2E_PIDFILE: pidFile },
    });
    assert.deepEqual(callJson(res).content, [{ type: "json", data: { count: 1 } }]);
    assert.ok(await goneSoon(Number(readFileSync(pidFile, "utf8"))), "the harness was stopped");
  });
  await t.step("tools call: typo suggestion and exit 2", async () => {
    const res = await call("helo_app", "{}");
    assert.equal(res.code, 2);
    assert.match(res.err, /did you mean `hello_app`/);
  });
  await t.step("tools list: eval typo suggestion and exit 2", async () => {
    const res = await run(ws, r, ["tools", "list", "--eval", "app/reviw"]);
    assert.equal(res.code, 2);
    assert.match(res.err, /did you mean `app\/review`/);
  });
  await t.step("tools call: arguments outside the schema are an error result, exit 1", async () => {
    const res = await call("hello_app", '{"name":"not valid!"}');
    assert.equal(res.code, 1, res.err);
    assert.equal(JSON.parse(res.out).isError, true);
    assert.doesNotMatch(res.err + res.out, /not valid!/, "argument values are never echoed");
  });
}

async function checkCases(t: Deno.TestContext, ws: DistWorkspace, r: Runner): Promise<void> {
  await t.step("the PATH has neither deno nor node", async () => {
    const probe = new Deno.Command("sh", {
      args: ["-c", "command -v node; command -v deno; echo end"],
      clearEnv: true,
      env: { PATH: ws.path },
    });
    assert.equal(new TextDecoder().decode((await probe.output()).stdout), "end\n");
  });
  await t.step("--version prints the deno.json version", async () => {
    const res = await run(ws, r, ["--version"]);
    assert.equal(res.code, 0);
    assert.equal(res.out.trim(), DENO_JSON_VERSION);
  });
  await t.step("tools check: the workspace is ready", async () => {
    const res = await run(ws, r, ["tools", "check", "--json"]);
    assert.equal(res.code, 0, res.err);
    const report = JSON.parse(res.out);
    assert.equal(report.ready, true);
    const names = report.evals[0].tools.map((x: { name: string }) => x.name).sort();
    assert.deepEqual(names, ["bump_app", "hello_app", "nap_app", "read_app", "say_app"]);
  });
  await t.step("tools check --execute runs one tool", async () => {
    const res = await run(ws, r, [
      "tools",
      "check",
      "--execute",
      "--eval",
      "app/review",
      "--tool",
      "hello_app",
      "--args",
      '{"name":"Bo"}',
    ]);
    assert.equal(res.code, 0, res.err);
    assert.equal(JSON.parse(res.out).ready, true);
  });
  await t.step("unknown command: suggestion, exit 2, no color when piped", async () => {
    const res = await run(ws, r, ["tols"], { env: { TERM: "xterm-256color" } });
    assert.equal(res.code, 2);
    assert.match(res.err, /Did you mean tools\?/);
    assert.ok(!res.err.includes("\x1b"), "no escape codes");
  });
}

async function artifactCases(t: Deno.TestContext, ws: DistWorkspace, r: Runner): Promise<void> {
  const out = join(ws.dir, "envelopes", "out");
  writeFileSync(join(out, "report.txt"), "twelve bytes");
  const envelope = JSON.stringify({
    schema: "odek.tool-result/v1",
    text: "Built the report.",
    artifacts: [{
      schema: "odek.artifact-ref/v1",
      id: "report",
      uri: `file://${out}/report.txt`,
      media_type: "text/plain",
    }],
  });
  const file = join(ws.dir, "envelopes", "env.json");
  writeFileSync(file, envelope);
  await t.step("artifact validate: accepted envelope renders without paths", async () => {
    const res = await run(ws, r, ["artifact", "validate", "--root", out, file]);
    assert.equal(res.code, 0, res.err);
    assert.match(res.out, /^Built the report\.\n\[artifact\] id="report" .*size=12 bytes/);
    assert.ok(!res.out.includes(ws.dir), "no physical path in the render");
  });
  await t.step(
    "artifact validate: a relative --root is relative to the working folder",
    async () => {
      const res = await run(ws, r, [
        "artifact",
        "validate",
        "--root",
        `./${relative(ws.root, out)}`,
        file,
      ]);
      assert.equal(res.code, 0, res.err);
      assert.match(res.out, /^Built the report\.\n\[artifact\] id="report"/);
    },
  );
  await t.step("artifact validate: a ref outside the roots is rejected (stdin)", async () => {
    const res = await run(ws, r, ["artifact", "validate", "--root", ws.root], {
      stdin: envelope,
    });
    assert.equal(res.code, 1);
    assert.equal(res.out, "");
    assert.ok(!res.err.includes(ws.dir), "no physical path in the error");
  });
}

async function serveCase(t: Deno.TestContext, ws: DistWorkspace, r: Runner): Promise<void> {
  await t.step("serve: an MCP SDK client lists and calls tools; sessions persist", async () => {
    const pidFile = join(ws.dir, "serve_start.pid");
    const transport = new StdioClientTransport({
      command: r.program,
      args: [...r.prefix, "serve", "--eval", "app/review"],
      cwd: ws.root,
      env: envFor(ws, r, { E2E_PIDFILE: pidFile }),
      stderr: "pipe",
    });
    const client = new Client({ name: "dist-e2e", version: "1" });
    await client.connect(transport);
    try {
      const { tools } = await client.listTools();
      const names = tools.map((x) => x.name);
      for (const n of ["bump_app", "hello_app", "read_app", "say_app"]) {
        assert.ok(names.includes(n));
      }
      const hello = await client.callTool({ name: "hello_app", arguments: { name: "Cy" } });
      assert.equal(hello.isError ?? false, false);
      assert.match(JSON.stringify(hello.content), /Hello, Cy/);
      const counts = [];
      for (let i = 0; i < 2; i++) {
        const b = await client.callTool({ name: "bump_app", arguments: {} });
        counts.push(JSON.parse((b.content as Array<{ text: string }>)[0].text).count);
      }
      assert.deepEqual(counts, [1, 2], "bound calls share one running session");
    } finally {
      await client.close();
    }
    assert.ok(await goneSoon(Number(readFileSync(pidFile, "utf8"))), "the session was stopped");
  });
}

async function pluginCases(t: Deno.TestContext, ws: DistWorkspace, r: Runner): Promise<void> {
  await t.step("first-party plugin audit-log is embedded: calls logged, audit tail", async () => {
    const log = join(ws.root, ".toolhost", "state", "audit.log");
    const lines = readFileSync(log, "utf8").trim().split("\n").map((l) => JSON.parse(l));
    assert.ok(lines.some((l) => l.tool === "hello_app" && l.outcome === "ok"), "hello_app logged");
    assert.ok(!readFileSync(log, "utf8").includes("Ada"), "arguments are hashed, not logged");
    const tail = await run(ws, r, ["audit", "tail", "-n", "1"]);
    assert.equal(tail.code, 0, tail.err);
    assert.equal(tail.out.trim().split("\n").length, 1);
  });
}

async function polishCases(t: Deno.TestContext, ws: DistWorkspace, r: Runner): Promise<void> {
  await t.step("completions bash|zsh|fish name the commands", async () => {
    for (const shell of ["bash", "zsh", "fish"]) {
      const res = await run(ws, r, ["completions", shell]);
      assert.equal(res.code, 0, res.err);
      assert.match(res.out, /toolhost/);
      assert.match(res.out, /artifact/);
    }
    assert.equal((await run(ws, r, ["completions", "tcsh"])).code, 2);
  });
}

/** The absolute path of the test runner's node, for the scaffolds' own `node --test`. */
function hostNode(): string | undefined {
  for (const dir of (Deno.env.get("PATH") ?? "").split(":")) {
    try {
      if (dir && Deno.statSync(`${dir}/node`).isFile) return `${dir}/node`;
    } catch {
      // not here
    }
  }
  return undefined;
}

/** TOOLHOST_BIN for the scaffolds' tests: the binary, or a wrapper script around a prefix. */
function toolhostBin(ws: DistWorkspace, r: Runner): string {
  if (r.prefix.length === 0) return r.program;
  const wrapper = join(ws.dir, "toolhost-wrapper.sh");
  const q = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;
  const env = Object.entries(r.env ?? {}).map(([k, v]) => `${k}=${q(v)} `).join("");
  writeFileSync(
    wrapper,
    `#!/bin/sh\nexec env ${env}${[r.program, ...r.prefix].map(q).join(" ")} "$@"\n`,
  );
  Deno.chmodSync(wrapper, 0o755);
  return wrapper;
}

async function scaffoldTest(ws: DistWorkspace, r: Runner, test: string, path: string) {
  const out = await new Deno.Command(hostNode()!, {
    args: ["--test", test],
    cwd: join(ws.dir, "scaffold"),
    clearEnv: true,
    env: { ...envFor(ws, r), PATH: path, TOOLHOST_BIN: toolhostBin(ws, r) },
  }).output();
  const text = new TextDecoder().decode(out.stdout);
  assert.equal(out.code, 0, text);
  assert.match(text, /^# skipped 0$/m, "the through-toolhost test ran");
  assert.match(text, /^# fail 0$/m);
}

async function initCases(t: Deno.TestContext, ws: DistWorkspace, r: Runner): Promise<void> {
  const help = await run(ws, r, ["--help"]);
  const hasInit = /^\s+init\b/m.test(help.out);
  const node = hostNode();
  const why = !hasInit
    ? " (no init command in this build)"
    : !node
    ? " (no node for node --test)"
    : "";
  const dir = join(ws.dir, "scaffold");
  const init = (kind: string, name: string) => run(ws, r, ["init", kind, name, "--repo", dir]);
  await t.step({
    name: `init plain-tool, tools check, then the scaffold's own test via TOOLHOST_BIN${why}`,
    ignore: why !== "",
    fn: async () => {
      Deno.mkdirSync(dir);
      const res = await init("plain-tool", "finder");
      assert.equal(res.code, 0, res.err);
      const check = await run(ws, r, ["tools", "check", "--json", "tools/agent", "--repo", dir]);
      assert.equal(check.code, 0, check.err + check.out);
      assert.equal(JSON.parse(check.out).ready, true);
      await scaffoldTest(ws, r, "tools/finder.test.mjs", ws.path);
    },
  });
  await t.step({
    name: `init json-tool and harness + their own tests (node on PATH for their programs)${why}`,
    ignore: why !== "",
    fn: async () => {
      for (const [kind, name] of [["json-tool", "greet"], ["harness", "notes"]]) {
        const res = await init(kind, name);
        assert.equal(res.code, 0, res.err);
      }
      // Their programs start with `#!/usr/bin/env node`: tools check finds that interpreter
      // on PATH, so it needs node there, as the tools themselves do.
      const withNode = `${node!.slice(0, node!.lastIndexOf("/"))}:${ws.path}`;
      const check = await run(ws, r, ["tools", "check", "--json", "tools/agent", "--repo", dir], {
        env: { PATH: withNode },
      });
      assert.equal(JSON.parse(check.out).ready, true, check.out);
      await scaffoldTest(ws, r, "tools/greet.test.mjs", withNode);
      await scaffoldTest(ws, r, "tools/notes.test.mjs", withNode);
    },
  });
  const noChromium = why !== "" ? why : chromiumMissing();
  if (noChromium !== "" && why === "") console.log(`SKIP init --template browser: ${noChromium}`);
  await t.step({
    name:
      `init harness --template browser + its own test, the session through this build${noChromium}`,
    ignore: noChromium !== "",
    fn: async () => {
      const res = await run(ws, r, [
        "init",
        "harness",
        "web",
        "--template",
        "browser",
        "--repo",
        dir,
      ]);
      assert.equal(res.code, 0, res.err);
      // node (20 in CI: no WebSocket), this build and the system's programs (chromium,
      // bwrap) on PATH, no deno: a Node-only machine.
      const withNode = `${node!.slice(0, node!.lastIndexOf("/"))}:${ws.path}:/usr/bin:/bin`;
      await scaffoldTest(ws, r, "tools/web.test.mjs", withNode);
    },
  });
}

/** Why Chromium cannot run here (`" (...)"`), or `""` when it can. */
function chromiumMissing(): string {
  const exe = Deno.env.get("CHROMIUM") ?? "chromium";
  try {
    const ok = new Deno.Command(exe, { args: ["--version"], stdout: "null", stderr: "null" })
      .outputSync().success;
    return ok ? "" : ` (${exe} does not run)`;
  } catch {
    return ` (${exe} is not installed: apt-get install chromium)`;
  }
}

/**
 * Register the whole suite as one `Deno.test` whose steps share a workspace; with a skip
 * reason, register it ignored and print one line naming the reason.
 *
 * @example
 * ```ts
 * // registerDistSuite("SEA binary", { program: "/abs/toolhost-sea", prefix: [] });
 * ```
 */
export function registerDistSuite(
  name: string,
  runner: Runner | { skip: string },
  setup?: (ws: DistWorkspace) => Promise<Runner>,
): void {
  if ("skip" in runner) {
    console.log(`SKIP ${name} end-to-end suite: ${runner.skip}`);
    Deno.test({
      name: `${name}: end-to-end suite (skipped: ${runner.skip})`,
      ignore: true,
      fn() {},
    });
    return;
  }
  Deno.test(`${name}: end-to-end suite from a temp dir without deno or node on PATH`, async (t) => {
    await using ws = await distWorkspace();
    const r = setup ? await setup(ws) : runner;
    await checkCases(t, ws, r);
    await callCases(t, ws, r);
    await artifactCases(t, ws, r);
    await serveCase(t, ws, r);
    await pluginCases(t, ws, r);
    await polishCases(t, ws, r);
    await initCases(t, ws, r);
  });
}
