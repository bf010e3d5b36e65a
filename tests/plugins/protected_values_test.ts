import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { definePlugin } from "../../lib/plugins/mod.ts";
import { resolveBindings } from "../../plugins/protected-values/bindings.ts";
import { BASE, ENV, errText, logLines, open, text } from "./_helpers.ts";

const VALUE = "tok-Secret-9876";

const PROTECTED = `${BASE}
[plugins]
enable = ["protected-values", "audit-log"]

[plugins.protected-values]
provider = "env"
env = { deploy = "DEPLOY_TOKEN" }
`;

function everything(stateDir: string, results: unknown[]): string {
  return [
    JSON.stringify(results),
    ...logLines(stateDir, "plugins.log"),
    ...logLines(stateDir, "audit.log"),
  ].join("\n");
}

Deno.test("protected values reach only the process env; the model never sees them", async () => {
  const seenByHooks: string[] = [];
  const spy = definePlugin({
    name: "spy",
    setup(api) {
      api.afterCall((r) => void seenByHooks.push(JSON.stringify(r)));
      api.beforeCall((c) => {
        if (c.tool === "read_app") throw new Error(`hook failure mentioning ${VALUE}`);
      });
    },
  });
  const w = await open(PROTECTED, {
    plugins: [spy],
    env: { ...ENV, DEPLOY_TOKEN: VALUE },
    files: { [`app/has-${VALUE}.txt`]: `the value is ${VALUE}\n` },
  });
  try {
    const bind = { protectedBindings: { TOKEN: "protected://deploy" } };
    const results = [
      await w.reg.call("shell_app", {
        command: 'echo "$TOKEN"; echo "err $TOKEN" >&2; cat has-*.txt',
        ...bind,
      }),
      await w.reg.call("token_app", bind),
      await w.reg.call("shell_app", { command: 'cat "nope-$TOKEN"', ...bind }),
      await w.reg.call("read_app", { path: "README.md" }),
    ];
    const sh =
      (results[0].content[0] as { data: { stdout: { text: string }; stderr: { text: string } } })
        .data;
    assert.equal(
      sh.stdout.text.split("\n")[0],
      "[protected]",
      "the process got the value; the result shows the mask",
    );
    assert.equal(sh.stderr.text, "err [protected]\n");
    assert.equal(text(results[1]), "token=[protected]");
    assert.equal(results[2].isError, false);
    assert.match(errText(results[3]), /refused/);
    assert.ok(
      !everything(w.stateDir, [...results, ...seenByHooks]).includes(VALUE),
      "no result, hook view, log or error holds the value",
    );
    const plain = await w.reg.call("shell_app", { command: 'printf "[%s]" "$TOKEN"' });
    assert.equal(
      (plain.content[0] as { data: { stdout: { text: string } } }).data.stdout.text,
      "[]",
      "no binding, no value",
    );
  } finally {
    await w.cleanup();
  }
});

Deno.test("unresolvable references and reserved names deny the call before any process", async () => {
  const w = await open(PROTECTED, { env: { ...ENV, DEPLOY_TOKEN: VALUE } });
  try {
    for (
      const protectedBindings of [
        { T: "protected://missing" },
        { T: "protected://deploy", U: "protected://x" },
        { PATH: "protected://deploy" },
        { LD_PRELOAD: "protected://deploy" },
      ]
    ) {
      const r = await w.reg.call("shell_app", { command: "touch marker", protectedBindings });
      assert.match(errText(r), /denied by `protected-values`/);
      assert.ok(!errText(r).includes("missing") && !errText(r).includes(VALUE));
    }
    assert.ok(!fs.existsSync(path.join(w.app, "marker")));
    const partial = await w.reg.call("shell_app", {
      command: "true",
      protectedBindings: { T: "protected://deploy", U: "protected://x" },
    });
    assert.match(errText(partial), /1 of 2 protected bindings could not be resolved/);
  } finally {
    await w.cleanup();
  }
});

Deno.test("the file provider reads a JSON file outside the workspace", async () => {
  const dir = fs.realpathSync(Deno.makeTempDirSync({ prefix: "toolhost-pv-" }));
  const file = path.join(dir, "protected.json");
  fs.writeFileSync(file, JSON.stringify({ api: "file-Secret-4242" }));
  const toml =
    `${BASE}\n[plugins]\nenable = ["protected-values"]\n[plugins.protected-values]\nprovider = "file"\nfile = ${
      JSON.stringify(file)
    }\n`;
  try {
    const w = await open(toml);
    try {
      const r = await w.reg.call("token_app", { protectedBindings: { TOKEN: "protected://api" } });
      assert.equal(text(r), "token=[protected]");
    } finally {
      await w.cleanup();
    }
    fs.rmSync(file);
    await assert.rejects(open(toml), /plugin `protected-values` failed to set up/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

Deno.test("without the plugin, protectedBindings are refused rather than ignored", async () => {
  const w = await open(BASE);
  try {
    const r = await w.reg.call("shell_app", {
      command: "touch marker",
      protectedBindings: { T: "protected://deploy" },
    });
    assert.match(errText(r), /enable the protected-values plugin/);
    assert.ok(!fs.existsSync(path.join(w.app, "marker")));
  } finally {
    await w.cleanup();
  }
});

Deno.test("binding limits: at most 32 bindings per call", () => {
  const values = new Map([["v", "x"]]);
  const n = (k: number) =>
    Object.fromEntries(Array.from({ length: k }, (_, i) => [`V${i}`, "protected://v"]));
  assert.equal(resolveBindings(n(32), values).ok, true);
  assert.equal(resolveBindings(n(31), values).ok, true);
  assert.equal(resolveBindings(n(33), values).ok, false);
});
