/**
 * Templates of `toolhost init json-tool NAME`: a self-contained Node.js json-protocol
 * tool and its `node --test` file. TypeScript string constants, so the compiled binary
 * and the npm build carry them (no template file is read at run time).
 *
 * Placeholders: NAME, ARTIFACT, TOOL (published name), EVAL, ROOT_URL (the workspace
 * root relative to the Artifact folder, e.g. `../`), PROGRAM_PATH and TEST_PATH
 * (workspace-relative, for comments).
 *
 * @module
 */

/**
 * The tool program (`NAME.mjs`, mode 755).
 *
 * @example
 * ```ts
 * import { JSON_TOOL_PROGRAM } from "./json_tool_templates.ts";
 * console.log(JSON_TOOL_PROGRAM.startsWith("#!/usr/bin/env node")); // true
 * ```
 */
export const JSON_TOOL_PROGRAM: string = String.raw`#!/usr/bin/env node
// {{NAME}}: a json-protocol tool for toolhost, declared in toolhost.toml as
// [artifacts.{{ARTIFACT}}.views.agent_tools.{{NAME}}]; agents see it as "{{TOOL}}".
//
// The json protocol, in full:
// - toolhost runs this file in the Artifact's folder and writes ONE request on stdin:
//     {"version":1,"context":{"artifactId":"...","artifactPath":"...","outputDir":"...",
//      "tmpDir":"...","scope":{...}},"args":{...}}
//   "args" has already been checked against the input_schema declared in toolhost.toml.
// - It reads ONE result object from stdout, with 1 to 32 content blocks:
//     {"content":[{"type":"text","text":"..."},{"type":"json","data":{...}}]}
//   (text at most 64 KiB per block, json data at most 512 KiB per block).
// - An error for the agent to read is exit code 0 with exactly one text block:
//     {"isError":true,"content":[{"type":"text","text":"What went wrong and what to do."}]}
// - A nonzero exit, a crash or invalid output reaches the agent only as a generic error.
//   stderr is never shown to the agent: log there freely.
//
// This file is plain Node.js without dependencies. To write tools in TypeScript (Deno or
// Node), use toolhost's harness-kit; it parses and checks the request, builds blocks with
// text()/json()/image() and enforces the output limits:
//   import { json, runJsonTool, text } from "toolhost/harness-kit";
//   await runJsonTool({ schema, handler: (args, context) => [text("..."), json({})] });
// Confined as declared (sandbox = "read"), a tool sees the workspace's node_modules only
// with sandbox_read = ["node_modules"]: "harness-kit from Node.js" in docs/harness.md.
//
// Test: node --test {{TEST_PATH}}
import { readFileSync } from "node:fs";

/** The tool's logic (edit this): return content blocks, or throw to report an error. */
function handle(args, context) {
  const who = String(args.who).trim();
  if (who === "") throw new Error("Give a name in \"who\"; it was blank.");
  const greeting = "Hello, " + who + "!";
  return [
    { type: "text", text: greeting + " (from {{NAME}} in Artifact " + context.artifactId + ")" },
    { type: "json", data: { greeting, artifact: context.artifactId } },
  ];
}

function readRequest() {
  let request;
  try {
    request = JSON.parse(readFileSync(0, "utf8"));
  } catch {
    return undefined;
  }
  const ok = request !== null && request.version === 1 &&
    typeof request.context === "object" && request.context !== null &&
    typeof request.args === "object" && request.args !== null && !Array.isArray(request.args);
  return ok ? request : undefined;
}

const request = readRequest();
if (request === undefined) {
  console.error("{{NAME}}: stdin is not a toolhost request; run it with toolhost (see {{TEST_PATH}})");
  process.exit(2);
}
let result;
try {
  result = { content: handle(request.args, request.context) };
} catch (error) {
  console.error(error); // the details are for you, on stderr; the agent gets the message
  const message = error instanceof Error && error.message.trim() ? error.message : "{{NAME}} failed.";
  result = { isError: true, content: [{ type: "text", text: message }] };
}
process.stdout.write(JSON.stringify(result) + "\n");
`;

/**
 * The test (`NAME.test.mjs`): runs the program as toolhost does, and through
 * `$TOOLHOST_BIN tools call` when TOOLHOST_BIN is set.
 *
 * @example
 * ```ts
 * import { JSON_TOOL_TEST } from "./json_tool_templates.ts";
 * console.log(JSON_TOOL_TEST.includes("node:test")); // true
 * ```
 */
export const JSON_TOOL_TEST: string = String
  .raw`// Tests of {{PROGRAM_PATH}}. Run them with:  node --test {{TEST_PATH}}
// They run the tool exactly as toolhost does: in the Artifact's folder, with a request
// envelope on stdin, reading one result object from stdout. With TOOLHOST_BIN set, e.g.
//   TOOLHOST_BIN="$(command -v toolhost)" node --test {{TEST_PATH}}
// they also call it through toolhost itself (declaration, schema check, normalization).
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, dirname, join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

const PROGRAM = fileURLToPath(new URL("./{{NAME}}.mjs", import.meta.url));
const FOLDER = dirname(PROGRAM); // the Artifact's folder: toolhost's working directory
const WORKSPACE = fileURLToPath(new URL("{{ROOT_URL}}", import.meta.url));
// Let "#!/usr/bin/env node" find the Node.js that runs these tests.
const env = { ...process.env, PATH: dirname(process.execPath) + delimiter + (process.env.PATH ?? "") };

/** Run the tool with a request for "args"; returns the exit status and the parsed result. */
function call(args, input) {
  const tmp = mkdtempSync(join(tmpdir(), "{{NAME}}-test-"));
  try {
    const context = {
      artifactId: "{{ARTIFACT}}",
      artifactPath: FOLDER,
      outputDir: tmp,
      tmpDir: tmp,
      scope: { "{{ARTIFACT}}": { path: FOLDER, kind: "folder", children: {} } },
    };
    const r = spawnSync(PROGRAM, [], {
      cwd: FOLDER,
      env,
      input: input ?? JSON.stringify({ version: 1, context, args }),
      encoding: "utf8",
    });
    return { status: r.status, result: r.status === 0 ? JSON.parse(r.stdout) : undefined };
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

test("{{NAME}} greets: a text block and a json block", () => {
  const { status, result } = call({ who: "Ada" });
  assert.equal(status, 0);
  assert.equal(result.isError, undefined);
  assert.match(result.content[0].text, /^Hello, Ada!/);
  assert.deepEqual(result.content[1], {
    type: "json",
    data: { greeting: "Hello, Ada!", artifact: "{{ARTIFACT}}" },
  });
});

test("{{NAME}} reports a blank name as an error the agent can act on", () => {
  const { status, result } = call({ who: "   " });
  assert.equal(status, 0); // authored errors exit 0 with exactly one text block
  assert.equal(result.isError, true);
  assert.equal(result.content.length, 1);
  assert.equal(result.content[0].type, "text");
});

test("{{NAME}} refuses stdin that is not a toolhost request", () => {
  assert.equal(call(undefined, "not json").status, 2);
});

test("through toolhost: tools call {{TOOL}}", {
  skip: !process.env.TOOLHOST_BIN && "set TOOLHOST_BIN to the toolhost executable to run this",
}, () => {
  const state = mkdtempSync(join(tmpdir(), "{{NAME}}-state-"));
  try {
    // execFileSync throws unless toolhost exits 0 (a success result).
    const out = execFileSync(process.env.TOOLHOST_BIN, [
      "tools", "call", "{{TOOL}}", "--eval", "{{EVAL}}", "--repo", WORKSPACE,
      "--state-dir", state, "--args", JSON.stringify({ who: "Ada" }),
    ], { env, encoding: "utf8" });
    const result = JSON.parse(out);
    assert.equal(result.isError, false);
    assert.equal(result.content[1].data.greeting, "Hello, Ada!");
  } finally {
    rmSync(state, { recursive: true, force: true });
  }
});
`;
