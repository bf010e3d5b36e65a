/**
 * Templates of `toolhost init harness NAME`: a self-contained Node.js tool-session
 * harness (start, stop and two bound json tools sharing the session's state) and its
 * `node --test` file. TypeScript string constants, so the compiled binary and the npm
 * build carry them (no template file is read at run time).
 *
 * Placeholders: NAME, ARTIFACT, SET_TOOL and GET_TOOL (published names), EVAL, ROOT_URL
 * (the workspace root relative to the Artifact folder, e.g. `../`), PROGRAM_PATH and
 * TEST_PATH (workspace-relative, for comments).
 *
 * @module
 */

/**
 * The harness program (`NAME.mjs`, mode 755).
 *
 * @example
 * ```ts
 * import { HARNESS_PROGRAM } from "./harness_templates.ts";
 * console.log(HARNESS_PROGRAM.startsWith("#!/usr/bin/env node")); // true
 * ```
 */
export const HARNESS_PROGRAM: string = String.raw`#!/usr/bin/env node
// {{NAME}}: a tool-session harness for toolhost, declared in toolhost.toml as session
// [artifacts.{{ARTIFACT}}.views.agent_sessions.{{NAME}}] with two bound json tools
// (agents see them as "{{SET_TOOL}}" and "{{GET_TOOL}}"). The session's state (here a
// Map; in your harness a browser, an app under test started on port 0, a REPL...) lives
// in the start process; the bound tools reach it over a Unix socket in the session
// directory.
//
// - "{{NAME}}.mjs start" is toolhost's start command: it reads the request envelope on
//   stdin (args: {}), listens in $ARTIFACTIZE_SESSION_DIR, prints ONE readiness line and
//   keeps running. Its exit ends the session.
// - "{{NAME}}.mjs set" and "{{NAME}}.mjs get" are the bound json-protocol tools: each
//   forwards its request to the start process and prints the result object it gets back.
// - "{{NAME}}.mjs stop" is toolhost's stop command: it asks the start process to finish.
//
// toolhost starts the session on the first bound call, runs stop when the eval ends, and
// then kills whatever is left of the session's processes. In TypeScript (Deno or Node),
// harness-kit's sessionHarness({ start, actions, stop }) does all of the plumbing below:
//   import { sessionHarness } from "toolhost/harness-kit";
// Confined as declared (sandbox = "read"), a harness sees the workspace's node_modules only
// with sandbox_read = ["node_modules"]: "harness-kit from Node.js" in docs/harness.md.
//
// Test: node --test {{TEST_PATH}}
import { readFileSync, rmSync } from "node:fs";
import { createConnection, createServer } from "node:net";
import { join, relative } from "node:path";

/** The bound actions (edit these): return content blocks, or throw to report an error. */
const actions = {
  set(args, state) {
    state.set(args.key, args.value);
    return [{ type: "text", text: "Stored " + args.key + "." }, { type: "json", data: { size: state.size } }];
  },
  get(args, state) {
    if (!state.has(args.key)) throw new Error("Nothing is stored under that key; set it first.");
    const value = state.get(args.key);
    return [{ type: "text", text: value }, { type: "json", data: { key: args.key, value } }];
  },
};

function fail(message) {
  console.error("{{NAME}}: " + message);
  process.exit(2);
}

/** The request envelope on stdin, and the socket in the session directory. */
function readRequest() {
  let request;
  try {
    request = JSON.parse(readFileSync(0, "utf8"));
  } catch {
    fail("stdin is not a toolhost request; run it with toolhost (see {{TEST_PATH}})");
  }
  const dir = process.env.ARTIFACTIZE_SESSION_DIR || process.env.TOOLHOST_SESSION_DIR;
  if (!dir) fail("ARTIFACTIZE_SESSION_DIR is not set; run it with toolhost");
  // Socket paths are limited to about 100 bytes: fall back to a path relative to the
  // Artifact folder, the working directory that start and the bound tools share.
  const socket = join(dir, "harness.sock");
  return { args: request.args ?? {}, socket: Buffer.byteLength(socket) <= 100 ? socket : relative(".", socket) };
}

function run(action, args, state) {
  try {
    if (!Object.hasOwn(actions, action)) throw new Error("The harness has no such action.");
    return { content: actions[action](args, state) };
  } catch (error) {
    return { isError: true, content: [{ type: "text", text: error.message || "The action failed." }] };
  }
}

function start({ socket }) {
  const state = new Map();
  const server = createServer((conn) => {
    let line = "";
    conn.setEncoding("utf8").on("error", () => {}).on("data", (chunk) => {
      line += chunk;
      if (!line.includes("\n")) return;
      let message;
      try {
        message = JSON.parse(line);
      } catch {
        return conn.destroy();
      }
      if (message.op === "stop") return conn.end("{}\n", shutdown);
      conn.end(JSON.stringify(run(message.action, message.args, state)) + "\n");
    });
  });
  const shutdown = () => server.close(() => process.exit(0)); // add your own cleanup here
  process.on("SIGTERM", shutdown).on("SIGINT", shutdown);
  rmSync(socket, { force: true });
  server.listen(socket, () => process.stdout.write("ready\n"));
}

/** Send one request line to the start process; resolves to its reply line. */
function send(socket, message) {
  return new Promise((resolve, reject) => {
    let reply = "";
    const conn = createConnection(socket, () => conn.write(JSON.stringify(message) + "\n"));
    conn.setEncoding("utf8").on("data", (chunk) => (reply += chunk));
    conn.on("end", () => resolve(reply)).on("error", reject);
  });
}

const role = process.argv[2] ?? "";
if (role === "start") {
  start(readRequest());
} else if (role === "stop") {
  await send(readRequest().socket, { op: "stop" }).catch(() => {}); // not running: done
} else if (Object.hasOwn(actions, role)) {
  const { args, socket } = readRequest();
  const result = await send(socket, { op: "act", action: role, args }).then(JSON.parse).catch(() => ({
    isError: true,
    content: [{ type: "text", text: "The {{NAME}} session is not running." }],
  }));
  process.stdout.write(JSON.stringify(result) + "\n");
} else {
  fail("usage: {{NAME}}.mjs start | stop | " + Object.keys(actions).join(" | "));
}
`;

/**
 * The test (`NAME.test.mjs`): drives the harness as toolhost does, and calls a bound
 * tool through `$TOOLHOST_BIN tools call` when TOOLHOST_BIN is set.
 *
 * @example
 * ```ts
 * import { HARNESS_TEST } from "./harness_templates.ts";
 * console.log(HARNESS_TEST.includes("ARTIFACTIZE_SESSION_DIR")); // true
 * ```
 */
export const HARNESS_TEST: string = String
  .raw`// Tests of {{PROGRAM_PATH}}. Run them with:  node --test {{TEST_PATH}}
// They drive the harness exactly as toolhost does: start with a private session directory
// and the request envelope on stdin, wait for the readiness line, run bound tools (a new
// process each, sharing the session directory), run stop, and check that the start
// process exited and nothing is left. With TOOLHOST_BIN set, e.g.
//   TOOLHOST_BIN="$(command -v toolhost)" node --test {{TEST_PATH}}
// they also call a bound tool through toolhost's own session supervisor.
import assert from "node:assert/strict";
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, dirname, join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

const HARNESS = fileURLToPath(new URL("./{{NAME}}.mjs", import.meta.url));
const FOLDER = dirname(HARNESS); // the Artifact's folder: toolhost's working directory
const WORKSPACE = fileURLToPath(new URL("{{ROOT_URL}}", import.meta.url));
// Let "#!/usr/bin/env node" find the Node.js that runs these tests.
const PATH = dirname(process.execPath) + delimiter + (process.env.PATH ?? "");

/** A request envelope as toolhost writes it on stdin. */
function envelope(args, tmp) {
  const context = {
    artifactId: "{{ARTIFACT}}",
    artifactPath: FOLDER,
    outputDir: tmp,
    tmpDir: tmp,
    scope: { "{{ARTIFACT}}": { path: FOLDER, kind: "folder", children: {} } },
  };
  return JSON.stringify({ version: 1, context, args });
}

/** Resolves once the start process printed its readiness line. */
function ready(child) {
  return new Promise((resolve, reject) => {
    let out = "";
    child.stdout.setEncoding("utf8").on("data", (chunk) => {
      out += chunk;
      if (out.includes("\n")) resolve(); // later output is drained, as toolhost does
    });
    child.once("exit", () => reject(new Error("the harness exited before it was ready")));
  });
}

test("{{NAME}}: start, bound calls share the session, stop leaves nothing", { timeout: 60_000 }, async () => {
  const tmp = mkdtempSync(join(tmpdir(), "{{NAME}}-test-"));
  const sessionDir = join(tmp, "session");
  mkdirSync(sessionDir, { mode: 0o700 });
  const env = { ...process.env, PATH, ARTIFACTIZE_SESSION_DIR: sessionDir, TOOLHOST_SESSION_DIR: sessionDir };
  const run = (role, args) => {
    const r = spawnSync(HARNESS, [role], { cwd: FOLDER, env, input: envelope(args, tmp), encoding: "utf8" });
    assert.equal(r.status, 0, role + " exited with " + r.status + ": " + r.stderr);
    return r.stdout === "" ? undefined : JSON.parse(r.stdout);
  };
  const start = spawn(HARNESS, ["start"], { cwd: FOLDER, env, stdio: ["pipe", "pipe", "inherit"] });
  const exited = new Promise((resolve) => start.once("exit", (code) => resolve(code)));
  try {
    start.stdin.end(envelope({}, tmp));
    await ready(start);
    assert.equal(run("set", { key: "greeting", value: "hello" }).isError, undefined);
    const got = run("get", { key: "greeting" });
    assert.deepEqual(got.content[1].data, { key: "greeting", value: "hello" });
    const missing = run("get", { key: "other" });
    assert.equal(missing.isError, true); // an authored error: exactly one text block
    assert.equal(missing.content.length, 1);
    run("stop", {});
    assert.equal(await exited, 0); // stop ended the start process
    assert.deepEqual(readdirSync(sessionDir), []); // and its socket is gone
  } finally {
    if (start.exitCode === null && start.signalCode === null) start.kill("SIGKILL");
    rmSync(tmp, { recursive: true, force: true });
  }
});

test("through toolhost: tools call {{SET_TOOL}}", {
  skip: !process.env.TOOLHOST_BIN && "set TOOLHOST_BIN to the toolhost executable to run this",
}, () => {
  const state = mkdtempSync(join(tmpdir(), "{{NAME}}-state-"));
  try {
    // execFileSync throws unless toolhost exits 0: the session started, the call
    // succeeded, and stop and cleanup were confirmed before toolhost exited.
    const out = execFileSync(process.env.TOOLHOST_BIN, [
      "tools", "call", "{{SET_TOOL}}", "--eval", "{{EVAL}}", "--repo", WORKSPACE,
      "--state-dir", state, "--args", JSON.stringify({ key: "greeting", value: "hello" }),
    ], { env: { ...process.env, PATH }, encoding: "utf8" });
    const result = JSON.parse(out);
    assert.equal(result.isError, false);
    assert.deepEqual(result.content[1].data, { size: 1 });
  } finally {
    rmSync(state, { recursive: true, force: true });
  }
});
`;
