/**
 * docs/harness.md → "harness-kit from Node.js": the json tool and the declaration shown
 * there run confined, loading `toolhost/harness-kit` from the workspace's `node_modules`
 * through `sandbox_read`; without that line the confined tool cannot load the package,
 * which is the trap the section warns about. The package is a stand-in with the same
 * export (the real one needs `deno task build:npm`); what is tested is what the sandbox
 * shows the tool.
 *
 * @module
 */

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { sandboxSupport } from "../../lib/sandbox/detect.ts";
import { runCapture } from "../helpers/cli.ts";
import { type FileTree, withWorkspace } from "../helpers/workspace.ts";
import { blocksUnder, ROOT } from "./_readme.ts";

const STAND_IN = `import { readFileSync } from "node:fs";
export const text = (t) => ({ type: "text", text: t });
export const json = (d) => ({ type: "json", data: d });
export async function runJsonTool({ handler }) {
  const req = JSON.parse(readFileSync(0, "utf8"));
  process.stdout.write(JSON.stringify({ content: await handler(req.args, req.context) }));
}
`;

const HEAD = `[artifacts.tools]\npath = "tools"\n\n[artifacts.tools.evals.agent]\n` +
  `audience = "agent"\n\n`;

function files(): FileTree {
  const [tool] = blocksUnder(/^harness-kit from Node\.js/, "js");
  return {
    "tools/shout.mjs": { text: `${tool}\n`, mode: 0o755 },
    "node_modules/toolhost/package.json": JSON.stringify({
      name: "toolhost",
      type: "module",
      exports: { "./harness-kit": "./harness-kit.mjs" },
    }),
    "node_modules/toolhost/harness-kit.mjs": STAND_IN,
  };
}

async function call(toml: string): Promise<{ code: number; result: Record<string, unknown> }> {
  let out = { code: -1, result: {} };
  await withWorkspace(HEAD + toml, files(), async (root) => {
    const r = await runCapture([
      ...["tools", "call", "shout_tools", "--eval", "tools/agent", "--repo", root],
      ...["--args", JSON.stringify({ text: "hi" })],
    ]);
    out = { code: r.code, result: JSON.parse(r.out) };
  });
  return out;
}

Deno.test({
  name: "docs: a confined Node.js json tool loads toolhost/harness-kit through sandbox_read",
  ignore: !sandboxSupport().ok,
  fn: async () => {
    const [toml] = blocksUnder(/^harness-kit from Node\.js/, "toml");
    assert.match(toml, /^sandbox = "read"$/m);
    assert.match(toml, /^sandbox_read = \["node_modules"\]/m);
    const ok = await call(toml);
    assert.equal(ok.code, 0, JSON.stringify(ok.result));
    assert.deepEqual(ok.result, {
      content: [{ type: "text", text: "HI" }, { type: "json", data: { length: 2 } }],
      isError: false,
    });
    const hidden = await call(toml.replace(/^sandbox_read = .*$/m, ""));
    assert.equal(hidden.code, 1);
    assert.deepEqual(hidden.result, {
      content: [{ type: "text", text: "The tool exited with status 1." }],
      isError: true,
    });
  },
});

Deno.test("the json-tool and harness scaffolds point Node.js authors at that section", async () => {
  const heading = /^### harness-kit from Node\.js$/m;
  assert.match(readFileSync(join(ROOT, "docs/harness.md"), "utf8"), heading);
  for (const kind of ["json-tool", "harness"]) {
    await withWorkspace(HEAD, { "tools/README.md": "x" }, async (root) => {
      const r = await runCapture(["init", kind, "probe", "--repo", root]);
      assert.equal(r.code, 0, r.err);
      const program = readFileSync(join(root, "tools/probe.mjs"), "utf8");
      assert.match(program, /sandbox_read = \["node_modules"\]/, kind);
      assert.match(program, /"harness-kit from Node\.js" in docs\/harness\.md/, kind);
    });
  }
});
