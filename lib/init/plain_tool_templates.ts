/**
 * Templates of `toolhost init plain-tool NAME`: a POSIX shell plain-protocol tool and its
 * `node --test` file. TypeScript string constants, so the compiled binary and the npm
 * build carry them (no template file is read at run time).
 *
 * Placeholders: NAME, ARTIFACT, TOOL (published name), EVAL, ROOT_URL (the workspace
 * root relative to the Artifact folder, e.g. `../`), PROGRAM_PATH and TEST_PATH
 * (workspace-relative, for comments).
 *
 * @module
 */

/**
 * The tool program (`NAME.sh`, mode 755).
 *
 * @example
 * ```ts
 * import { PLAIN_TOOL_PROGRAM } from "./plain_tool_templates.ts";
 * console.log(PLAIN_TOOL_PROGRAM.startsWith("#!/bin/sh")); // true
 * ```
 */
export const PLAIN_TOOL_PROGRAM: string = String.raw`#!/bin/sh
# {{NAME}}: a plain-protocol tool for toolhost, declared in toolhost.toml as
# [artifacts.{{ARTIFACT}}.views.agent_tools.{{NAME}}]; agents see it as "{{TOOL}}".
# It searches the Artifact's files for lines that contain a fixed text.
#
# The plain protocol, in full:
# - toolhost runs this file in the Artifact's folder with the argv declared in
#   toolhost.toml. A placeholder such as {text} becomes exactly one literal argument,
#   whatever it holds (quotes, spaces, $(...) and ; stay text, never shell code).
# - stdin is empty. stdout becomes one text block (at most 64 KiB; longer output is
#   truncated with a marker). A nonzero exit marks that text as an error.
# - stderr is never shown to the agent: log there freely.
#
# Test: node --test {{TEST_PATH}}
if [ "$#" -ne 1 ] || [ -z "$1" ]; then
  echo "usage: {{NAME}}.sh TEXT" >&2
  exit 2
fi
# -r every file below the folder, -n line numbers, -F the text is not a pattern,
# -I skip binary files, -- the text may start with "-".
grep -rnFI -- "$1" .
status=$?
# grep exits 1 when nothing matches: for the agent that is an answer, not an error.
if [ "$status" -eq 1 ]; then
  echo "No line contains that text."
  exit 0
fi
exit "$status"
`;

/**
 * The test (`NAME.test.mjs`): runs the program as toolhost does, and through
 * `$TOOLHOST_BIN tools call` when TOOLHOST_BIN is set.
 *
 * @example
 * ```ts
 * import { PLAIN_TOOL_TEST } from "./plain_tool_templates.ts";
 * console.log(PLAIN_TOOL_TEST.includes("node:test")); // true
 * ```
 */
export const PLAIN_TOOL_TEST: string = String
  .raw`// Tests of {{PROGRAM_PATH}}. Run them with:  node --test {{TEST_PATH}}
// They run the tool exactly as toolhost does: with the declared argv, empty stdin, and a
// folder as working directory. With TOOLHOST_BIN set, e.g.
//   TOOLHOST_BIN="$(command -v toolhost)" node --test {{TEST_PATH}}
// they also call it through toolhost itself (declaration, argv, output handling).
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

const PROGRAM = fileURLToPath(new URL("./{{NAME}}.sh", import.meta.url));
const WORKSPACE = fileURLToPath(new URL("{{ROOT_URL}}", import.meta.url));

/** Run the tool in a fresh folder holding "files"; returns its exit status and stdout. */
function run(text, files) {
  const dir = mkdtempSync(join(tmpdir(), "{{NAME}}-test-"));
  try {
    for (const [name, content] of Object.entries(files)) writeFileSync(join(dir, name), content);
    const r = spawnSync(PROGRAM, [text], { cwd: dir, input: "", encoding: "utf8" });
    return { status: r.status, stdout: r.stdout };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test("{{NAME}} prints the matching lines with their file and line number", () => {
  const { status, stdout } = run("beta", { "notes.txt": "alpha\nbeta gamma\n" });
  assert.equal(status, 0);
  assert.match(stdout, /notes\.txt:2:beta gamma/);
});

test("{{NAME}} answers 'no match' successfully", () => {
  const { status, stdout } = run("delta", { "notes.txt": "alpha\n" });
  assert.equal(status, 0);
  assert.equal(stdout, "No line contains that text.\n");
});

test("{{NAME}} treats the argument as literal text, never as shell code", () => {
  const { status, stdout } = run("$(echo x); *", { "notes.txt": "a $(echo x); * b\n" });
  assert.equal(status, 0);
  assert.match(stdout, /notes\.txt:1:a \$\(echo x\); \* b/);
});

test("through toolhost: tools call {{TOOL}}", {
  skip: !process.env.TOOLHOST_BIN && "set TOOLHOST_BIN to the toolhost executable to run this",
}, () => {
  const state = mkdtempSync(join(tmpdir(), "{{NAME}}-state-"));
  try {
    // execFileSync throws unless toolhost exits 0 (a success result). This test file
    // contains the text searched for, so there is a match.
    const out = execFileSync(process.env.TOOLHOST_BIN, [
      "tools", "call", "{{TOOL}}", "--eval", "{{EVAL}}", "--repo", WORKSPACE,
      "--state-dir", state, "--args", JSON.stringify({ text: "through toolhost" }),
    ], { encoding: "utf8" });
    const result = JSON.parse(out);
    assert.equal(result.isError, false);
    assert.match(result.content[0].text, /{{NAME}}\.test\.mjs:\d+:/);
  } finally {
    rmSync(state, { recursive: true, force: true });
  }
});
`;
