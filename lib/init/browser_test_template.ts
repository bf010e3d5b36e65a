/**
 * Template of `toolhost init harness NAME --template browser`: `NAME.test.mjs`, a
 * `node --test` file that drives the harness as toolhost does (and through
 * `$TOOLHOST_BIN tools call` when set); it SKIPs with the reason where Chromium is missing.
 *
 * @module
 */

/**
 * The test (`NAME.test.mjs`).
 *
 * @example
 * ```ts
 * import { BROWSER_TEST } from "./browser_test_template.ts";
 * console.log(BROWSER_TEST.includes("node --test")); // true
 * ```
 */
export const BROWSER_TEST: string = String
  .raw`// Tests of {{PROGRAM_PATH}}. Run them with:  node --test {{TEST_PATH}}
// They drive the harness exactly as toolhost does: start with a private session directory
// and the request envelope on stdin, wait for the readiness line, run bound tools (a new
// process each, sharing the session directory), run stop, and check that nothing of the
// browser is left. They SKIP, saying why, where Chromium is missing. With TOOLHOST_BIN
// set, e.g.
//   TOOLHOST_BIN="$(command -v toolhost)" node --test {{TEST_PATH}}
// they also call a bound tool through toolhost's own session supervisor.
import assert from "node:assert/strict";
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, dirname, join } from "node:path";
import { test } from "node:test";
import { fileURLToPath, pathToFileURL } from "node:url";

const HARNESS = fileURLToPath(new URL("./{{NAME}}.mjs", import.meta.url));
const FOLDER = dirname(HARNESS); // the Artifact's folder: toolhost's working directory
const WORKSPACE = fileURLToPath(new URL("{{ROOT_URL}}", import.meta.url));
// Let "#!/usr/bin/env node" find the Node.js that runs these tests.
const PATH = dirname(process.execPath) + delimiter + (process.env.PATH ?? "");
const CHROMIUM = process.env.CHROMIUM || "chromium";
const MISSING = spawnSync(CHROMIUM, ["--version"], { stdio: "ignore", timeout: 60_000 }).status === 0
  ? false
  : CHROMIUM + " is not installed or does not run (apt-get install chromium, or set CHROMIUM)";

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

/** Live processes whose command line or environment mentions marker (Linux /proc). */
function processesMentioning(marker) {
  if (!existsSync("/proc/self/cmdline")) return [];
  return readdirSync("/proc").filter((pid) => {
    if (!/^\d+$/.test(pid) || Number(pid) === process.pid) return false;
    try {
      const stat = readFileSync("/proc/" + pid + "/stat", "latin1");
      if (/^[ZX]/.test(stat.slice(stat.lastIndexOf(")") + 2))) return false;
      return readFileSync("/proc/" + pid + "/cmdline", "latin1").includes(marker) ||
        readFileSync("/proc/" + pid + "/environ", "latin1").includes(marker);
    } catch {
      return false; // gone, or not ours to read
    }
  });
}

/** Width and height from a PNG's IHDR; throws when the bytes are not a PNG. */
function pngSize(bytes) {
  assert.deepEqual([...bytes.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  assert.equal(bytes.subarray(12, 16).toString("latin1"), "IHDR");
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}

async function waitFor(predicate) {
  for (let i = 0; i < 600 && !predicate(); i++) await new Promise((r) => setTimeout(r, 100));
  return predicate();
}

test("{{NAME}}: open, click, type, snapshot, screenshot, console; stop leaves nothing", {
  skip: MISSING,
  timeout: 180_000,
}, async () => {
  const tmp = mkdtempSync(join(tmpdir(), "{{NAME}}-test-"));
  const sessionDir = join(tmp, "session");
  mkdirSync(sessionDir, { mode: 0o700 });
  const env = { ...process.env, PATH, ARTIFACTIZE_SESSION_DIR: sessionDir, TOOLHOST_SESSION_DIR: sessionDir };
  const call = (role, args) => {
    const r = spawnSync(HARNESS, [role], { cwd: FOLDER, env, input: envelope(args, tmp), encoding: "utf8" });
    assert.equal(r.status, 0, role + " exited with " + r.status + ": " + r.stderr);
    return r.stdout === "" ? undefined : JSON.parse(r.stdout);
  };
  const textOf = (result) => result.content.filter((b) => b.type === "text").map((b) => b.text).join("\n");
  const start = spawn(HARNESS, ["start"], { cwd: FOLDER, env, stdio: ["pipe", "pipe", "inherit"] });
  const exited = new Promise((resolve) => start.once("exit", (code) => resolve(code)));
  try {
    start.stdin.end(envelope({}, tmp));
    await ready(start);
    assert.match(textOf(call("open_url", { url: "/" })), /^Opened http:\/\/127\.0\.0\.1:\d+\/ \(title: "Counter"\)\.$/);
    assert.equal(textOf(call("click", { selector: "#add" })), "Clicked.");
    assert.equal(textOf(call("type_text", { selector: "#name", text: "Ada" })), "Typed.");
    const snapshot = textOf(call("snapshot", {}));
    assert.match(snapshot, /span#count\n\s+"1"/);
    assert.match(snapshot, /"Hello, Ada!"/);
    const shot = call("screenshot", {});
    assert.equal(shot.content[0].mimeType, "image/png");
    assert.deepEqual(pngSize(Buffer.from(shot.content[0].data, "base64")), { width: 800, height: 600 });
    assert.match(textOf(call("console_logs", {})), /log: count is 1/);
    const missing = call("click", { selector: "#nothing" });
    assert.equal(missing.isError, true); // an authored error: exactly one text block
    assert.deepEqual(missing.content, [{ type: "text", text: "No element matches the selector." }]);
    for (const url of ["https://example.com/", "file:///etc/passwd", "javascript:1", "data:text/html,x"]) {
      const refused = call("open_url", { url });
      assert.equal(refused.isError, true, url + " was not refused");
      assert.match(textOf(refused), /^open_url: /);
    }
    const page = pathToFileURL(join(FOLDER, "{{NAME}}.html")).href;
    assert.match(textOf(call("open_url", { url: page })), /\/files\/[0-9a-f]{32}\/{{NAME}}\.html \(title: "Counter"\)/);
    call("stop", {});
    assert.equal(await exited, 0); // stop ended the start process
    assert.ok(await waitFor(() => processesMentioning(sessionDir).length === 0), "a browser process was left");
  } finally {
    if (start.exitCode === null && start.signalCode === null) start.kill("SIGKILL");
    for (const pid of processesMentioning(sessionDir)) process.kill(Number(pid), "SIGKILL");
    rmSync(tmp, { recursive: true, force: true });
  }
});

test("through toolhost: tools call {{NAME}}_open_url_{{ARTIFACT}}", {
  skip: MISSING || (!process.env.TOOLHOST_BIN && "set TOOLHOST_BIN to the toolhost executable to run this"),
  timeout: 180_000,
}, () => {
  const state = mkdtempSync(join(tmpdir(), "{{NAME}}-state-"));
  try {
    // execFileSync throws unless toolhost exits 0: the session started, the call
    // succeeded, and stop and cleanup were confirmed before toolhost exited.
    const out = execFileSync(process.env.TOOLHOST_BIN, [
      "tools", "call", "{{NAME}}_open_url_{{ARTIFACT}}", "--eval", "{{EVAL}}", "--repo", WORKSPACE,
      "--state-dir", state, "--args", JSON.stringify({ url: "/" }),
    ], { env: { ...process.env, PATH }, encoding: "utf8" });
    const result = JSON.parse(out);
    assert.equal(result.isError, false);
    assert.match(result.content[0].text, /^Opened http:\/\/127\.0\.0\.1:\d+\/ \(title: "Counter"\)\.$/);
  } finally {
    rmSync(state, { recursive: true, force: true });
  }
});
`;
