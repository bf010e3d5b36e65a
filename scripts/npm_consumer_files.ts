/**
 * The files of the throwaway npm consumer project that scripts/npm_consumer_test.ts
 * creates: a `node --test` file that uses the installed `toolhost` package like a
 * consumer (library, plugin API, odek, harness-kit, the bin, `tsc --noEmit` over a typed
 * consumer), and that typed consumer. Kept as strings so `deno check scripts/` never
 * tries to resolve the bare `toolhost` specifier.
 *
 * @module
 */

/**
 * `consumer.ts`: must type-check with `tsc --noEmit` against the package's `.d.ts`. The
 * `@ts-expect-error` lines prove the types are real (an `any` would make them unused,
 * which tsc reports as errors).
 *
 * @example
 * ```ts
 * import { CONSUMER_TS } from "./npm_consumer_files.ts";
 * console.log(CONSUMER_TS.includes("Registry.open")); // true
 * ```
 */
export const CONSUMER_TS = `import {
  definePlugin,
  loadWorkspace,
  Registry,
  type ToolListing,
  type ToolResult,
  VERSION,
} from "toolhost";
import { json, runJsonTool, text, type ToolContext } from "toolhost/harness-kit";

const noWrites = definePlugin({
  name: "no-writes",
  setup(api) {
    api.beforeCall(() => ({ decision: "deny", reason: "read-only session" }), {
      tools: ["write_*"],
    });
  },
});

export async function listAndRead(root: string): Promise<string[]> {
  const ws = await loadWorkspace(root);
  const reg = await Registry.open(ws, "app/review", { plugins: [noWrites] });
  try {
    const tools: ToolListing[] = reg.list();
    const result: ToolResult = await reg.call("read_app", { path: "README.md" });
    const failed: boolean = result.isError;
    return failed ? [] : tools.map((t) => t.name);
  } finally {
    await reg.close();
  }
}

export async function tool(): Promise<void> {
  await runJsonTool<{ name: string }>({
    schema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] },
    handler: ({ name }, context: ToolContext) => [text("Hello, " + name), json({ id: context.artifactId })],
  });
}

export const version: string = VERSION;
// @ts-expect-error VERSION is a string
export const notANumber: number = VERSION;
// @ts-expect-error Registry.open needs a workspace, not a string
void Registry.open("examples", "app/review");
`;

/**
 * `consumer.test.mjs`: the checks, run by `node --test` in the consumer project.
 * Environment: TOOLHOST_EXAMPLES (the example workspace), TOOLHOST_VERSION, PACK_JSON
 * (the `npm pack --dry-run --json` report).
 *
 * @example
 * ```ts
 * import { CONSUMER_TEST_MJS } from "./npm_consumer_files.ts";
 * console.log(CONSUMER_TEST_MJS.includes("node:test")); // true
 * ```
 */
export const CONSUMER_TEST_MJS = String.raw`import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import * as toolhost from "toolhost";
import * as kit from "toolhost/harness-kit";

const EXAMPLES = process.env.TOOLHOST_EXAMPLES;
const state = () => mkdtempSync(join(tmpdir(), "consumer-state-"));

test("the package resolves from node_modules, ESM, with its version", () => {
  const pkg = JSON.parse(readFileSync("node_modules/toolhost/package.json", "utf8"));
  assert.equal(pkg.version, process.env.TOOLHOST_VERSION);
  assert.equal(toolhost.VERSION, pkg.version);
  assert.equal(pkg.type, "module");
});

test("library: loadWorkspace + Registry list and call a built-in", async () => {
  const dir = state();
  const ws = await toolhost.loadWorkspace(EXAMPLES);
  const reg = await toolhost.Registry.open(ws, "app/review", { stateDir: dir });
  try {
    const names = reg.list().map((t) => t.name);
    assert.ok(names.includes("read_app") && names.includes("stats_app"), names.join(","));
    const res = await reg.call("read_app", { path: "README.md" });
    assert.equal(res.isError, false);
  } finally {
    await reg.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test("library: typed errors with stable codes", async () => {
  const ws = await toolhost.loadWorkspace(EXAMPLES);
  await assert.rejects(toolhost.Registry.open(ws, "app/reviw"), (e) => {
    assert.ok(e instanceof toolhost.ToolhostError);
    assert.equal(e.code, "UNKNOWN_EVAL");
    assert.match(e.message, /did you mean/);
    return true;
  });
});

test("plugin API: a definePlugin beforeCall hook denies a call", async () => {
  const dir = state();
  const deny = toolhost.definePlugin({
    name: "deny-read",
    setup(api) {
      api.beforeCall(() => ({ decision: "deny", reason: "reads are off" }), { tools: ["read_*"] });
    },
  });
  assert.ok(toolhost.isPlugin(deny));
  const ws = await toolhost.loadWorkspace(EXAMPLES);
  const reg = await toolhost.Registry.open(ws, "app/review", { stateDir: dir, plugins: [deny] });
  try {
    const res = await reg.call("read_app", { path: "README.md" });
    assert.equal(res.isError, true);
  } finally {
    await reg.close();
    rmSync(dir, { recursive: true, force: true });
  }
  assert.ok(Array.isArray(toolhost.FIRST_PARTY_PLUGINS) || typeof toolhost.FIRST_PARTY_PLUGINS === "object");
});

const odek = ["parseEnvelope", "validateArtifactRef", "renderEnvelope", "countRendered", "removeSessionSubtree"];
const missing = odek.filter((f) => typeof toolhost[f] !== "function");
test("odek functions: parse, validate, render, count", {
  skip: missing.length > 0 && "toolhost (mod.ts) does not export " + missing.join(", ") + " yet",
}, async () => {
  const root = mkdtempSync(join(tmpdir(), "consumer-odek-"));
  try {
    writeFileSync(join(root, "a.txt"), "hello");
    const env = toolhost.parseEnvelope(JSON.stringify({
      schema: "odek.tool-result/v1",
      text: "done",
      artifacts: [{ schema: "odek.artifact-ref/v1", id: "a", uri: "file://" + root + "/a.txt", media_type: "text/plain" }],
    }));
    await toolhost.validateArtifactRef(env.artifacts[0], [root]);
    const rendered = toolhost.renderEnvelope(env);
    assert.equal(toolhost.countRendered(rendered), 1);
    assert.ok(!rendered.includes(root));
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test("harness-kit: blocks and a json-protocol request handled in-process", async () => {
  assert.equal(kit.PROTOCOL_VERSION, 1);
  assert.deepEqual(kit.text("hi"), { type: "text", text: "hi" });
  assert.deepEqual(kit.json({ n: 1 }), { type: "json", data: { n: 1 } });
  for (const f of ["runJsonTool", "sessionHarness", "testTool", "testSession", "handleRequest"]) {
    assert.equal(typeof kit[f], "function", f);
  }
});

test("harness-kit under Node: testSession refuses a .ts harness and says what to do", async () => {
  await assert.rejects(
    kit.testSession({ harness: join(tmpdir(), "kv_harness.ts"), actions: {} }),
    (e) =>
      e.code === "INVALID_INVOCATION" && /TypeScript, which Node\.js cannot run/.test(e.message) &&
      /under Deno/.test(e.message),
  );
});

test("the toolhost bin: --version and tools check", () => {
  const bin = join("node_modules", ".bin", "toolhost");
  assert.equal(execFileSync(bin, ["--version"], { encoding: "utf8" }).trim(), process.env.TOOLHOST_VERSION);
  const report = JSON.parse(execFileSync(bin, ["tools", "check", "--json", "--repo", EXAMPLES], { encoding: "utf8" }));
  assert.equal(report.ready, true);
});

test("types: tsc --noEmit type-checks a TypeScript consumer", () => {
  try {
    execFileSync(join("node_modules", ".bin", "tsc"), ["--noEmit", "-p", "tsconfig.json"], { encoding: "utf8" });
  } catch (e) {
    assert.fail("tsc reported errors:\n" + e.stdout);
  }
});

test("package contents are minimal: esm/ and bin/ JS + .d.ts, README and docs/, package.json", () => {
  const [report] = JSON.parse(process.env.PACK_JSON);
  const files = report.files.map((f) => f.path);
  const unexpected = files.filter((p) =>
    !/^(esm\/.*\.(js|d\.ts)|bin\/toolhost\.js|README\.md|package\.json)$/.test(p) &&
    !/^docs\/([\w-]+\/)*[\w.-]+\.(md|png|yaml|cfg)$/.test(p)
  );
  assert.deepEqual(unexpected, []);
  for (const doc of ["docs/manifest.md", "docs/harness.md", "docs/mcp.md", "docs/trust.md"]) {
    assert.ok(files.includes(doc), doc + " is packed: the README links to it");
  }
  assert.ok(!files.some((p) => /(^|\/)(tests?|fixtures|examples|bench|scripts)\//.test(p)));
  assert.ok(!files.some((p) => p.endsWith(".map") || (p.endsWith(".ts") && !p.endsWith(".d.ts"))));
  assert.ok(files.includes("esm/mod.js") && files.includes("esm/harness-kit/mod.d.ts"));
});

test("every relative link of the packed README and docs/ resolves inside the package", () => {
  const pkg = join("node_modules", "toolhost");
  const docs = ["README.md", ...readdirSync(join(pkg, "docs")).filter((f) => f.endsWith(".md"))
    .map((f) => "docs/" + f)];
  const dead = [];
  let checked = 0;
  for (const doc of docs) {
    let fenced = false;
    for (const line of readFileSync(join(pkg, doc), "utf8").split("\n")) {
      if (/^\s*\x60\x60\x60/.test(line)) fenced = !fenced;
      if (fenced) continue;
      const text = line.replace(/\x60[^\x60]*\x60/g, "");
      for (const m of text.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
        if (/^[a-z][a-z0-9+.-]*:/i.test(m[1]) || m[1].startsWith("#")) continue;
        checked++;
        const target = join(pkg, dirname(doc), decodeURIComponent(m[1].split("#")[0]));
        if (!existsSync(target)) dead.push(doc + " -> " + m[1]);
      }
    }
  }
  assert.deepEqual(dead, []);
  assert.ok(checked > 5, "the packed README links to its docs");
});
`;
