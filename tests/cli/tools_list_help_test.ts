/**
 * `toolhost tools list`, `--help` everywhere, unknown commands, the version (in-process).
 */

import assert from "node:assert/strict";
import { VERSION } from "../../lib/version.ts";
import { EXAMPLES, fixture, REPO_ROOT, runCapture } from "../helpers/cli.ts";
import { withWorkspace } from "../helpers/workspace.ts";

const SCOPED = fixture("scoped");

Deno.test("tools list --eval app/review: text", async () => {
  const r = await runCapture(["tools", "list", "--repo", SCOPED, "--eval", "app/review"]);
  assert.equal(r.code, 0, r.err);
  const lines = r.out.trimEnd().split("\n");
  assert.equal(lines[0], "app/review (agent): 8 tool(s)");
  assert.match(lines[1], /^ {2}read_app +Read lines of a file in app\.$/);
  assert.match(lines[2], /^ {2}count_app +Count words in app\.$/);
  assert.deepEqual(lines.slice(1).map((l) => l.trim().split(/ +/)[0]), [
    "read_app",
    "count_app",
    "echo_app",
    "list_spec",
    "read_deep",
    "read_notes",
    "get_artifact_field",
    "search_artifact_content",
  ]);
  assert.ok(!r.out.includes("overview_app"), "a human tool was listed");
});

Deno.test("tools list --eval app/review --json", async () => {
  const r = await runCapture(["tools", "list", "--repo", SCOPED, "--eval", "app/review", "--json"]);
  assert.equal(r.code, 0, r.err);
  const body = JSON.parse(r.out);
  assert.equal(body.eval, "app/review");
  assert.equal(body.audience, "agent");
  for (const t of body.tools) {
    assert.deepEqual(Object.keys(t).sort(), ["description", "inputSchema", "name"]);
  }
  const byName = Object.fromEntries(
    body.tools.map((t: { name: string }) => [t.name, t]),
  ) as Record<string, { description: string; inputSchema: Record<string, unknown> }>;
  assert.equal(byName.echo_app.description, "Echo a word: {literal} braces.");
  assert.deepEqual(byName.echo_app.inputSchema.required, ["word"]);
  assert.ok(!("overview_app" in byName));
});

Deno.test("tools list on examples/ exits 0", async () => {
  const r = await runCapture(["tools", "list", "--repo", EXAMPLES, "--eval", "app/review"]);
  assert.equal(r.code, 0, r.err);
  assert.match(r.out, /^app\/review \(agent\): \d+ tool\(s\)\n {2}read_app /);
});

Deno.test("tools list: --eval is required; unknown eval → exit 2", async () => {
  const r = await runCapture(["tools", "list", "--repo", EXAMPLES]);
  assert.equal(r.code, 2);
  assert.match(r.err, /--eval is required/);
  const u = await runCapture(["tools", "list", "--repo", EXAMPLES, "--eval", "app/x"]);
  assert.equal(u.code, 2);
  assert.match(u.err, /no eval `app\/x`/);
});

Deno.test("without --eval, list, call and serve name this workspace's evals, not an example's", async () => {
  const toml = `[artifacts.tools]\npath = "tools"\n\n[artifacts.tools.evals.agent]\n` +
    `audience = "agent"\n\n[artifacts.tools.evals.people]\naudience = "human"\n`;
  await withWorkspace(toml, { "tools/README.md": "x" }, async (root) => {
    const list = await runCapture(["tools", "list", "--repo", root]);
    assert.equal(list.code, 2);
    assert.match(
      list.err,
      /--eval is required: .* e\.g\. --eval tools\/agent; evals: tools\/agent, tools\/people/,
    );
    for (const argv of [["tools", "call", "x"], ["serve"]]) {
      const r = await runCapture([...argv, "--repo", root]);
      assert.equal(r.code, 2, r.err);
      assert.match(
        r.err,
        /--eval is required: .* e\.g\. --eval tools\/agent; agent evals: tools\/agent \[/,
      );
      assert.doesNotMatch(r.err, /app\/review/);
    }
  });
});

Deno.test("without --eval and without a loadable manifest, list, call and serve name the manifest", async () => {
  const empty = await Deno.makeTempDir({ prefix: "toolhost-no-manifest-" });
  try {
    for (const argv of [["tools", "list"], ["tools", "call", "x"], ["serve"]]) {
      const r = await runCapture([...argv, "--repo", empty]);
      assert.equal(r.code, 2, r.err);
      assert.match(r.err, /toolhost\.toml/);
      assert.doesNotMatch(r.err, /--eval is required/);
    }
  } finally {
    await Deno.remove(empty, { recursive: true });
  }
  // A manifest that does not load stops every command with its own errors (exit 1).
  await withWorkspace('[artifacts.tools]\npath = "tools"\nprotocl = 1\n', {
    "tools/README.md": "x",
  }, async (root) => {
    for (const argv of [["tools", "list"], ["tools", "call", "x"], ["serve"]]) {
      const r = await runCapture([...argv, "--repo", root]);
      assert.equal(r.code, 1, r.err);
      assert.match(r.err, /toolhost\.toml:3: .*protocl: unknown key/);
      assert.doesNotMatch(r.err, /--eval is required/);
    }
  });
});

Deno.test("a bare eval name (no ARTIFACT/) gets the eval of that name suggested", async () => {
  const toml = `[artifacts.tools]\npath = "tools"\n\n[artifacts.tools.evals.agent]\n` +
    `audience = "agent"\n\n[artifacts.tools.evals.people]\naudience = "human"\n`;
  await withWorkspace(toml, { "tools/README.md": "x" }, async (root) => {
    for (const argv of [["tools", "list", "agent"], ["tools", "call", "x", "--eval", "agent"]]) {
      const r = await runCapture([...argv, "--repo", root]);
      assert.equal(r.code, 2, r.err);
      assert.match(r.err, /no eval `agent` in this workspace \(did you mean `tools\/agent`\?\)/);
    }
    const lock = await runCapture(["lock", "--eval", "agent", "--repo", root]);
    assert.equal(lock.code, 2, lock.err);
    assert.match(lock.err, /\(did you mean `tools\/agent`\?\)/);
  });
});

Deno.test("tools list takes the eval as a positional selector too, like tools check", async () => {
  const byFlag = await runCapture(["tools", "list", "--repo", SCOPED, "--eval", "app/review"]);
  const byArg = await runCapture(["tools", "list", "--repo", SCOPED, "app/review"]);
  assert.equal(byArg.code, 0, byArg.err);
  assert.equal(byArg.out, byFlag.out);
  const both = await runCapture(["tools", "list", "--repo", SCOPED, "app/review", "--eval", "x"]);
  assert.equal(both.code, 2);
  assert.match(both.err, /either as a positional selector or with --eval, not both/);
});

Deno.test("tools call and serve refuse a human eval in CLI terms: agent evals, and how to run it", async () => {
  for (const argv of [["tools", "call", "overview_app"], ["serve"]]) {
    const r = await runCapture([...argv, "--repo", SCOPED, "--eval", "app/triage"]);
    assert.equal(r.code, 2, r.err);
    assert.match(r.err, /`app\/triage` is a human eval, and `(tools call|serve)` runs agent evals/);
    assert.match(r.err, /this workspace's: app\/review, spec\/rules/);
    assert.match(r.err, /`toolhost tools check --execute --eval app\/triage --tool TOOL`/);
    assert.doesNotMatch(r.err, /pass audience/); // a library option the CLI has no flag for
  }
});

Deno.test("a usage error names the --help to read", async () => {
  const cases: [string[], string][] = [
    [["bogus"], "toolhost --help"],
    [["tools", "list", "--bogus"], "toolhost tools list --help"],
    [["init", "json-tool"], "toolhost init --help"],
  ];
  for (const [argv, help] of cases) {
    const r = await runCapture(argv);
    assert.equal(r.code, 2, r.err);
    assert.ok(r.err.trimEnd().endsWith(`(see \`${help}\`)`), `${argv.join(" ")}: ${r.err}`);
  }
});

Deno.test("unknown commands and missing subcommands → exit 2", async () => {
  for (const argv of [["bogus"], ["tools", "bogus"], [], ["tools"]]) {
    const r = await runCapture(argv);
    assert.equal(r.code, 2, `${JSON.stringify(argv)}: ${r.err}`);
  }
});

/** The subcommand names listed in a help text's "Commands:" section (without `help`). */
function subcommands(help: string): string[] {
  const section = help.split("Commands:\n")[1]?.split("\n\n")[0];
  if (!section) return [];
  return section.split("\n")
    .map((l) => /^ {2}([a-z][a-z-]*)/.exec(l)?.[1])
    .filter((n): n is string => n !== undefined && n !== "help");
}

// Issue 2: "`--help` on every command says what it does with an example."
Deno.test("--help on every command exits 0, describes it and includes an example", async () => {
  const queue: string[][] = [[]];
  const seen: string[] = [];
  const leaves: string[] = [];
  while (queue.length > 0 && seen.length < 100) {
    const path = queue.shift()!;
    const r = await runCapture([...path, "--help"]);
    const name = ["toolhost", ...path].join(" ");
    seen.push(name);
    assert.equal(r.code, 0, `${name} --help: ${r.err}`);
    assert.match(r.out, /^Usage: /, name);
    assert.match(r.out, /Examples?:\n {2}toolhost /, `${name} --help has no example`);
    const subs = subcommands(r.out);
    if (subs.length === 0) leaves.push(name);
    for (const sub of subs) queue.push([...path, sub]);
  }
  assert.ok(seen.length < 100, "the help tree does not end");
  // The README: every command that reads a workspace (all leaves but these two) takes
  // --repo and --state-dir.
  const noWorkspace = ["toolhost artifact validate", "toolhost completions"];
  for (const name of leaves) {
    if (noWorkspace.includes(name)) continue;
    const help = (await runCapture([...name.split(" ").slice(1), "--help"])).out;
    assert.match(help, /--repo <dir>/, `${name} lacks --repo`);
    assert.match(help, /--state-dir <dir>/, `${name} lacks --state-dir`);
  }
  for (
    const must of ["toolhost", "toolhost tools", "toolhost tools check", "toolhost tools list"]
  ) {
    assert.ok(seen.includes(must), `${must} not reached`);
  }
});

Deno.test("-v and `version` name --version", async () => {
  for (const [arg, what] of [["-v", "option '-v'"], ["version", "command 'version'"]]) {
    const r = await runCapture([arg]);
    assert.equal(r.code, 2);
    assert.equal(
      r.err,
      `error: unknown ${what}\n(Did you mean --version (-V)?)\n(see \`toolhost --help\`)\n`,
    );
  }
});

Deno.test("--version prints the version", async () => {
  const r = await runCapture(["--version"]);
  assert.equal(r.code, 0);
  assert.equal(r.out.trim(), VERSION);
});

Deno.test("lib/version.ts VERSION equals deno.json's version", async () => {
  const deno = JSON.parse(await Deno.readTextFile(`${REPO_ROOT}/deno.json`));
  assert.equal(typeof deno.version, "string");
  assert.equal(VERSION, deno.version);
});

Deno.test("tools list names an eval's extensions without starting them", async () => {
  const dir = Deno.makeTempDirSync({ prefix: "toolhost_list_ext_" });
  try {
    Deno.mkdirSync(`${dir}/app`);
    const marker = `${dir}/started`;
    Deno.writeTextFileSync(
      `${dir}/toolhost.toml`,
      `[artifacts.app]\npath = "app"\n\n[artifacts.app.evals.review]\naudience = "agent"\n` +
        `extensions = ["docs"]\n\n[artifacts.app.views.agent_tools.read]\nbuiltin = "read"\n\n` +
        `[extensions.docs]\ncommand = "sh"\nargs = ["-c", "touch '${marker}'"]\n`,
    );
    const r = await runCapture(["tools", "list", "--repo", dir, "--eval", "app/review"]);
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /^app\/review \(agent\): 3 tool\(s\)\n {2}read_app /);
    assert.match(r.out, /the tools of extension\(s\) docs, named <tool>_<extension>; not started/);
    const j = await runCapture(["tools", "list", "--repo", dir, "--eval", "app/review", "--json"]);
    assert.deepEqual(JSON.parse(j.out).extensions, ["docs"]);
    assert.equal(fileExists(marker), false, "listing started the extension server");
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

function fileExists(p: string): boolean {
  try {
    Deno.statSync(p);
    return true;
  } catch {
    return false;
  }
}
