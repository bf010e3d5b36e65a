/**
 * `toolhost init harness NAME --template browser`: the scaffold validates and passes
 * `tools check`; its own `node --test` file passes under the machine's Node.js (20: no
 * global WebSocket — the harness drives Chromium over a pipe), with and without
 * TOOLHOST_BIN; through the real registry the confined session opens its page, clicks,
 * types and screenshots off the host's network and leaves no process; and a `file:`
 * page whose sibling is swapped for a symlink out of the scope after open_url's check
 * never shows the outside file; the README's "A browser session" commands work in an empty
 * folder. SKIPs with the reason where Chromium (or bubblewrap, for the confined runs) is
 * missing.
 */

import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { Buffer } from "node:buffer";
import { Registry } from "../../lib/registry/registry.ts";
import { sandboxSupport } from "../../lib/sandbox/detect.ts";
import { loadWorkspace } from "../../lib/workspace/load_workspace.ts";
import { runCapture } from "../helpers/cli.ts";
import { blocksUnder } from "../docs/_readme.ts";
import {
  assertGeneratedTestPasses,
  assertToolsCheck,
  init,
  tempDir,
  toolhostWrapper,
} from "../init/_helpers.ts";
import { chromiumMissing, decodePng, markedProcesses, toolEnv, waitFor } from "./_helpers.ts";

const missing = chromiumMissing();
if (missing !== undefined) console.log(`SKIP tests/browser/scaffold_test.ts: ${missing}`);
const support = sandboxSupport();
const noSandbox = support.ok ? undefined : support.reason;
if (missing === undefined && noSandbox !== undefined) {
  console.log(`SKIP tests/browser/scaffold_test.ts confined session: ${noSandbox}`);
}

type Block = { type: string; text?: string; data?: unknown; mimeType?: string };
type Result = { content: Block[]; isError?: boolean };

const TOOLS = ["open_url", "click", "type_text", "snapshot", "screenshot", "console_logs"];

function textOf(r: Result): string {
  return r.content.filter((b) => b.type === "text").map((b) => b.text).join("\n");
}

Deno.test("init harness --template browser: files, declarations, tools check", async () => {
  await using tmp = tempDir();
  const ws = join(tmp.path, "ws");
  const out = await init(["harness", "web", "--template", "browser", "--repo", ws]);
  assert.match(out, /^Created browser harness `web` in Artifact `tools`:/);
  assert.match(out, new RegExp(`Agents see ${TOOLS.map((t) => `web_${t}_tools`).join(", ")} `));
  assert.match(out, /needs Chromium/);
  assert.equal(statSync(join(ws, "tools/web.mjs")).mode & 0o777, 0o755);
  for (const f of ["web_browser.mjs", "web_files.mjs", "web.html", "web.test.mjs"]) {
    assert.equal(statSync(join(ws, "tools", f)).mode & 0o777, 0o644, f);
  }
  const w = await loadWorkspace(ws);
  const art = w.artifacts.get("tools")!;
  const files = ["tools/web.mjs", "tools/web_browser.mjs", "tools/web_files.mjs", "tools/web.html"];
  assert.deepEqual(art.sessions.web.start.executionPaths, files);
  assert.equal(art.sessions.web.sandbox?.mode, "read");
  for (const t of TOOLS) {
    const decl = art.agentTools[`web_${t}`];
    assert.ok(decl.type === "command" && decl.session === "web", t);
    assert.deepEqual(decl.executionPaths, files);
  }
  await assertToolsCheck(ws, "tools/agent");
});

Deno.test("init harness --template: refused for another kind, an unknown template, a long NAME", async () => {
  await using tmp = tempDir();
  const cases: [string[], RegExp][] = [
    [["json-tool", "greet", "--template", "browser"], /--template is for a harness only/],
    [["harness", "web", "--template", "firefox"], /--template must be one of browser/],
    [["harness", "a".repeat(52), "--template", "browser"], /at most 51 characters/],
  ];
  for (const [argv, why] of cases) {
    const r = await runCapture(["init", ...argv, "--repo", join(tmp.path, "ws")]);
    assert.equal(r.code, 2, argv.join(" "));
    assert.match(r.err, why);
  }
  assert.throws(() => statSync(join(tmp.path, "ws")), "a refused init wrote something");
});

Deno.test({
  name: "init harness --template browser: its node --test file passes under this machine's Node",
  ignore: missing !== undefined,
}, async () => {
  await using tmp = tempDir();
  const ws = join(tmp.path, "ws");
  await init(["harness", "web", "--template", "browser", "--repo", ws]);
  const node = execFileSync("node", ["--version"], { encoding: "utf8" }).trim();
  console.log(`node --test under Node ${node}`);
  const file = join(ws, "tools/web.test.mjs");
  await assertGeneratedTestPasses(file, ws, 2);
  await assertGeneratedTestPasses(file, ws, 2, toolhostWrapper(tmp.path));
});

Deno.test({
  name:
    "init harness --template browser: confined through the registry, off the host's network; a Chromium crash and close leave nothing; the next start works",
  ignore: missing !== undefined || noSandbox !== undefined,
}, async () => {
  await using tmp = tempDir();
  const ws = join(tmp.path, "ws");
  const state = join(tmp.path, "state");
  await init(["harness", "web", "--template", "browser", "--repo", ws]);
  const reg = await Registry.open(await loadWorkspace(ws), "tools/agent", {
    stateDir: state,
    env: toolEnv(),
  });
  try {
    const opened = await reg.call("web_open_url_tools", { url: "/" }) as Result;
    assert.equal(opened.isError, false, textOf(opened));
    assert.equal(
      textOf(await reg.call("web_click_tools", { selector: "#add" }) as Result),
      "Clicked.",
    );
    const typed = await reg.call("web_type_text_tools", { selector: "#name", text: "Ada" });
    assert.equal(textOf(typed as Result), "Typed.");
    assert.match(textOf(await reg.call("web_snapshot_tools", {}) as Result), /"Hello, Ada!"/);
    const shot = await reg.call("web_screenshot_tools", {}) as Result;
    const png = shot.content.find((b) => b.type === "image");
    assert.equal(png?.mimeType, "image/png");
    assert.deepEqual(decodePng(Buffer.from(String(png.data), "base64")), {
      width: 800,
      height: 600,
    });
    const browser = markedProcesses(state).find((pid) =>
      readFileSync(`/proc/${pid}/cmdline`, "latin1").includes("--remote-debugging-pipe")
    );
    assert.ok(browser !== undefined, "no Chromium process carries the state dir");
    const ns = (pid: number | "self") => Deno.readLinkSync(`/proc/${pid}/ns/net`);
    assert.notEqual(ns(browser), ns("self"), "Chromium shares the host's network namespace");

    // A crash of Chromium ends the session and leaves nothing of it.
    const main = markedProcesses(state).find((pid) => {
      const argv = readFileSync(`/proc/${pid}/cmdline`, "latin1").split("\0");
      return argv.includes("--remote-debugging-pipe") && !argv.some((a) => a.startsWith("--type="));
    });
    assert.ok(main !== undefined, "no Chromium main process");
    Deno.kill(main, "SIGKILL");
    assert.ok(await waitFor(() => markedProcesses(state).length === 0), "the crash left a process");
    const ended = await reg.call("web_open_url_tools", { url: "/" }) as Result;
    assert.equal(ended.isError, true);
    assert.match(textOf(ended), /The tool session `web` ended\./);
  } finally {
    await reg.close();
  }
  assert.ok(await waitFor(() => markedProcesses(state).length === 0), "a browser process was left");
  // The next start works.
  const next = await Registry.open(await loadWorkspace(ws), "tools/agent", {
    stateDir: state,
    env: toolEnv(),
  });
  try {
    const again = await next.call("web_open_url_tools", { url: "/" }) as Result;
    assert.equal(again.isError, false, textOf(again));
  } finally {
    await next.close();
  }
  assert.ok(await waitFor(() => markedProcesses(state).length === 0), "a browser process was left");
});

Deno.test({
  name:
    "init harness --template browser: a file: page's sibling swapped for a symlink out of the scope is never shown; the text bounds hold",
  ignore: missing !== undefined,
}, async () => {
  await using tmp = tempDir();
  const ws = join(tmp.path, "ws");
  const state = join(tmp.path, "state");
  await init(["harness", "web", "--template", "browser", "--repo", ws]);
  // Unconfined, so the outside file is reachable and only the harness's own check stands.
  const toml = join(ws, "toolhost.toml");
  const text = readFileSync(toml, "utf8").replace(/^sandbox(_read)? = .*\n/gm, "");
  writeFileSync(toml, text);
  const pages = join(ws, "tools/pages");
  mkdirSync(pages);
  writeFileSync(join(pages, "a.html"), '<title>A</title><a id="next" href="b.html">next</a>');
  writeFileSync(join(pages, "b.html"), "<title>B</title><p>inside</p>");
  writeFileSync(join(tmp.path, "secret.html"), "<title>S</title><p>TOP-SECRET</p>");
  symlinkSync(join(tmp.path, "secret.html"), join(pages, "link.html"));
  const reg = await Registry.open(await loadWorkspace(ws), "tools/agent", {
    stateDir: state,
    env: toolEnv(),
  });
  try {
    const viaLink = await reg.call("web_open_url_tools", {
      url: pathToFileURL(join(pages, "link.html")).href,
    }) as Result;
    assert.equal(viaLink.isError, true, "a symlink out of the scope was opened");
    assert.match(textOf(viaLink), /^open_url: /);

    const a = await reg.call("web_open_url_tools", {
      url: pathToFileURL(join(pages, "a.html")).href,
    }) as Result;
    assert.equal(a.isError, false, textOf(a));
    // After open_url checked a.html's folder, b.html becomes a symlink to the secret.
    rmSync(join(pages, "b.html"));
    symlinkSync(join(tmp.path, "secret.html"), join(pages, "b.html"));
    assert.equal(
      textOf(await reg.call("web_click_tools", { selector: "#next" }) as Result),
      "Clicked.",
    );
    const snap = await waitForSnapshot(reg, (s) => !s.startsWith("A\n"));
    assert.doesNotMatch(snap, /TOP-SECRET/);
    assert.match(snap, /refused/);

    // The same bounds as examples/browser: 64 KiB with a marker, 200 console entries.
    writeFileSync(
      join(pages, "big.html"),
      `<title>Big</title><p>${"word ".repeat(30_000)}</p><script>` +
        `for (let i = 0; i < 500; i++) console.log(i + " " + "x".repeat(2000));</script>`,
    );
    const big = await reg.call("web_open_url_tools", {
      url: pathToFileURL(join(pages, "big.html")).href,
    }) as Result;
    assert.equal(big.isError, false, textOf(big));
    const cut = textOf(await reg.call("web_snapshot_tools", {}) as Result);
    assert.ok(Buffer.byteLength(cut) <= 64 * 1024, "the snapshot passed 64 KiB");
    assert.match(cut, /\n\[snapshot truncated: \d+ bytes, first part shown\]$/);
    const logs = textOf(await reg.call("web_console_logs_tools", {}) as Result);
    assert.ok(Buffer.byteLength(logs) <= 64 * 1024, "the console log passed 64 KiB");
    assert.match(logs, /^\[300 older entries dropped\]\nlog: 300 x+\n/);
    assert.equal(logs.split("\n")[1].length, 1000, "an entry was not cut to 1000 characters");
  } finally {
    await reg.close();
  }
  assert.ok(await waitFor(() => markedProcesses(state).length === 0), "a browser process was left");
});

/** The tab's snapshot once `pred` holds (the click's navigation has committed). */
async function waitForSnapshot(reg: Registry, pred: (s: string) => boolean): Promise<string> {
  let s = "";
  for (let i = 0; i < 600; i++) {
    s = textOf(await reg.call("web_snapshot_tools", {}) as Result);
    if (pred(s)) return s;
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.fail(`the tab never left the first page:\n${s}`);
}

Deno.test({
  name: "README's browser session: its commands work in an empty folder",
  ignore: missing !== undefined || noSandbox !== undefined,
}, async () => {
  await using tmp = tempDir();
  const [block] = blocksUnder(/^A browser session$/, "sh");
  const lines = block.split("\n").filter((l) => l.trim() !== "" && !l.startsWith("#"));
  assert.equal(lines.length, 3, block);
  toolhostWrapper(tmp.path);
  const ws = join(tmp.path, "ws");
  mkdirSync(ws);
  const PATH = `${tmp.path}:${dirname(Deno.execPath())}:${Deno.env.get("PATH") ?? "/usr/bin:/bin"}`;
  for (const line of lines) {
    const r = await new Deno.Command("sh", {
      args: ["-c", line],
      cwd: ws,
      env: { PATH, HOME: Deno.env.get("HOME") ?? "/" },
      stdout: "piped",
      stderr: "piped",
    }).output();
    const out = new TextDecoder().decode(r.stdout);
    assert.equal(r.code, 0, `${line}\n${out}${new TextDecoder().decode(r.stderr)}`);
    if (line.includes("tools call")) assert.equal(JSON.parse(out).isError, false, out);
    // TAP (Node 20's default off a terminal) or spec (Node 22's).
    if (line.startsWith("node --test")) assert.match(out, /^(# |ℹ )fail 0$/m);
  }
});
