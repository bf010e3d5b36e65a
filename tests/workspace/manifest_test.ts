/**
 * The manifest file: discovery, the 8 MiB cap, TOML and UTF-8 errors, top-level keys.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { DeclarationError, InvocationError } from "../../lib/errors/errors.ts";
import { loadWorkspace } from "../../lib/workspace/load_workspace.ts";
import {
  BASE_FILES,
  BASE_TOML,
  expectProblem,
  problemsOf,
  withWorkspace,
} from "../helpers/workspace.ts";

const MiB8 = 8 * 1024 * 1024;

/** BASE_TOML padded with comment lines to exactly `bytes` bytes. */
function paddedManifest(bytes: number): string {
  const line = `#${"x".repeat(1022)}\n`;
  let body = BASE_TOML;
  body += line.repeat(Math.floor((bytes - body.length - 2048) / line.length));
  body += `#${"y".repeat(bytes - body.length - 2)}\n`;
  assert.equal(new TextEncoder().encode(body).byteLength, bytes);
  return body;
}

// Seed: "Declarations/schemas are capped at 8 MiB."
Deno.test("manifest: 8 MiB - 1 and exactly 8 MiB load; 8 MiB + 1 is rejected", async () => {
  for (const size of [MiB8 - 1, MiB8]) {
    assert.deepEqual(await problemsOf(paddedManifest(size), BASE_FILES), [], `size ${size}`);
  }
  const problems = await problemsOf(paddedManifest(MiB8 + 1), BASE_FILES);
  assert.equal(problems.length, 1);
  assert.equal(problems[0].file, "toolhost.toml");
  assert.match(problems[0].message, /8388609 bytes; declarations are capped at 8 MiB/);
});

Deno.test("a schema over 8 MiB inside a manifest under 8 MiB is rejected", async () => {
  // Each newline of a TOML literal string serializes as two bytes of JSON (`\n`).
  const newlines = MiB8 / 2 + 16;
  const toml = BASE_TOML + "\n[artifacts.app.views.agent_tools.x]\n" +
    'description = "d"\nprotocol = "json"\ncommand = "sh"\nargs = []\n' +
    `input_schema = { type = "object", description = '''\n${"\n".repeat(newlines)}''' }\n`;
  assert.ok(toml.length < MiB8);
  await expectProblem(toml, BASE_FILES, {
    keyPath: "artifacts.app.views.agent_tools.x.input_schema",
    message: /larger than 8 MiB/,
  });
});

Deno.test("invalid TOML is a declaration error with a line", async () => {
  const problems = await problemsOf('[artifacts.app]\npath = "app"\n\n[artifacts\n');
  assert.equal(problems.length, 1);
  assert.match(problems[0].message, /^invalid TOML at column \d+: [a-z]/);
  assert.doesNotMatch(problems[0].message, /Invalid TOML document|\n/);
  assert.equal(problems[0].line, 4);
});

Deno.test("duplicate TOML keys are a declaration error", async () => {
  const problems = await problemsOf('[artifacts.app]\npath = "app"\npath = "app"\n');
  assert.equal(problems.length, 1);
  assert.match(
    problems[0].message,
    /invalid TOML at column 1: .*\(a key or a \[table\] appears twice: keep one\)$/,
  );
  assert.equal(problems[0].line, 3);
});

Deno.test("common TOML slips get a hint: unquoted text, unclosed header, unclosed string", async () => {
  const cases: [string, RegExp][] = [
    [
      "[artifacts.app]\npath = app\n",
      /invalid value \(a value is missing, or text lacks its double quotes, e\.g\. path = "tools"\)$/,
    ],
    [
      '[artifacts.app\npath = "app"\n',
      /illegal character in key \(.*a \[table\] header needs its closing \]\)$/,
    ],
    ['[artifacts.app]\npath = "app\n', /\(is a string's closing " missing\?\)$/],
  ];
  for (const [toml, message] of cases) {
    const problems = await problemsOf(toml);
    assert.equal(problems.length, 1, toml);
    assert.match(problems[0].message, message);
  }
});

Deno.test("invalid UTF-8 is a declaration error", async () => {
  const bytes = new Uint8Array([...new TextEncoder().encode("# "), 0xff, 0x0a]);
  await withWorkspace(bytes, {}, async (root) => {
    await assert.rejects(loadWorkspace(root), (e) => {
      assert.ok(e instanceof DeclarationError);
      assert.match(e.message, /not valid UTF-8/);
      return true;
    });
  });
});

Deno.test("unknown top-level keys → did-you-mean, with their line", async () => {
  await expectProblem(`${BASE_TOML}\n[artifact.x]\npath = "x"\n`, BASE_FILES, {
    keyPath: "artifact",
    message: /unknown key \(did you mean `artifacts`\?\)/,
    line: 7,
  });
  await expectProblem(`artifact = 1\n${BASE_TOML}`, BASE_FILES, { keyPath: "artifact", line: 1 });
});

Deno.test("an empty manifest asks for an Artifact", async () => {
  const problems = await problemsOf("# nothing\n");
  assert.equal(problems.length, 1);
  assert.equal(problems[0].keyPath, "artifacts");
  assert.match(problems[0].message, /declare at least one/);
});

Deno.test("DeclarationError message: file:line: key path: message, no physical path", async () => {
  await withWorkspace('[artifacts.app]\npath = "app"\npth = 1\n', BASE_FILES, async (root) => {
    const e = await loadWorkspace(root).then(() => undefined, (e) => e);
    assert.ok(e instanceof DeclarationError);
    assert.equal(e.code, "DECLARATION_ERROR");
    assert.match(e.message, /^toolhost\.toml:3: artifacts\.app\.pth: unknown key/);
    assert.ok(!e.message.includes(root), "message names the physical root");
  });
});

Deno.test("workspace discovery: nearest ancestor with toolhost.toml, or an error", async () => {
  await withWorkspace(BASE_TOML, { ...BASE_FILES, "app/sub/deeper/x": "" }, async (root) => {
    const ws = await loadWorkspace(undefined, { cwd: join(root, "app/sub/deeper") });
    assert.equal(ws.root, root);
    await assert.rejects(loadWorkspace("app", { cwd: root }), InvocationError);
  });
  const empty = await Deno.makeTempDir({ prefix: "toolhost_test_" });
  try {
    await assert.rejects(loadWorkspace(empty), /no toolhost\.toml in that folder/);
  } finally {
    await Deno.remove(empty, { recursive: true });
  }
});

Deno.test({
  name: "an unreadable manifest is a declaration error without a physical path",
  ignore: Deno.uid() === 0, // root reads anything
}, async () => {
  await withWorkspace(BASE_TOML, BASE_FILES, async (root) => {
    await Deno.chmod(join(root, "toolhost.toml"), 0o000);
    const e = await loadWorkspace(root).then(() => undefined, (e) => e);
    assert.ok(e instanceof DeclarationError);
    assert.ok(!e.message.includes(root));
  });
});

Deno.test("a FIFO named toolhost.toml is a declaration error, not a hang", async () => {
  const dir = Deno.makeTempDirSync({ prefix: "toolhost-fifo-" });
  try {
    const made = new Deno.Command("mkfifo", { args: [`${dir}/toolhost.toml`] }).outputSync();
    if (!made.success) return; // no mkfifo here
    await assert.rejects(loadWorkspace(dir), /must be a regular file/);
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

// A library caller passed `root`, not a CLI flag: the error names what they passed.
Deno.test("manifest: loadWorkspace(root) errors name `root`, the CLI's name `--repo`", async () => {
  await withWorkspace(BASE_TOML, BASE_FILES, async (root) => {
    const gone = join(root, "nope");
    await assert.rejects(
      loadWorkspace(gone),
      (e: unknown) =>
        e instanceof InvocationError && e.message === `root ${gone}: no such folder` &&
        !e.message.includes("--repo"),
    );
    await assert.rejects(
      loadWorkspace(join(root, "app")),
      (e: unknown) =>
        e instanceof InvocationError && /^root .*app: no toolhost\.toml/.test(e.message) &&
        !e.message.includes("--repo"),
    );
    await assert.rejects(
      loadWorkspace(gone, { rootFlag: "--repo" }),
      (e: unknown) =>
        e instanceof InvocationError && e.message === `--repo ${gone}: no such folder`,
    );
  });
});
