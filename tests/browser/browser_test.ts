/**
 * The browser example (examples/browser) through the real registry and through `serve`
 * with the MCP SDK client: open the local page, click, type, snapshot, screenshot (a
 * PNG of the viewport's size), console logs, refused URLs; the checked-in session runs
 * confined (its own network namespace; `tools check` says `bubblewrap fs=read net=off`)
 * and a stop leaves no process of the browser tree (a call error, a Chromium crash and a
 * kill -9 of toolhost: cleanup_test.ts). SKIPs with the reason when Chromium or
 * bubblewrap is missing.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Buffer } from "node:buffer";
import { Client } from "@modelcontextprotocol/sdk/client";
// @ts-types="@modelcontextprotocol/sdk/client/stdio"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { GROUP_TAG_VAR } from "../../lib/process/escape_reaper.ts";
import { sandboxSupport } from "../../lib/sandbox/detect.ts";
import {
  chromiumMain,
  chromiumMissing,
  decodePng,
  markedProcesses,
  openBrowserRegistry,
  pgidOf,
  procText,
  toolEnv,
  waitFor,
  WORKSPACE,
} from "./_helpers.ts";

const missing = chromiumMissing();
if (missing !== undefined) console.log(`SKIP tests/browser: ${missing}`);
// The checked-in example is confined: without bubblewrap toolhost refuses to run it.
const noSandbox = missing === undefined ? sandboxMissing() : undefined;
if (noSandbox !== undefined) console.log(`SKIP tests/browser (a confined session): ${noSandbox}`);
const ignore = missing !== undefined || noSandbox !== undefined;

type Block = { type: string; text?: string; data?: unknown; mimeType?: string };
type Result = { content: Block[]; isError?: boolean };

function textOf(r: Result): string {
  return r.content.filter((b) => b.type === "text").map((b) => b.text).join("\n");
}

function pngOf(r: Result): Uint8Array {
  const b = r.content.find((b) => b.type === "image");
  assert.ok(b, "no image block");
  assert.equal(b.mimeType, "image/png");
  return Buffer.from(String(b.data), "base64");
}

/** A fresh state dir (the marker of this test's browser tree); removed after `body`. */
async function withState(body: (state: string) => Promise<void>): Promise<void> {
  const state = mkdtempSync(join(tmpdir(), "toolhost-browser-"));
  try {
    await body(state);
    assert.ok(await waitFor(() => markedProcesses(state).length === 0), "browser tree survived");
  } finally {
    for (const pid of markedProcesses(state)) {
      try {
        Deno.kill(pid, "SIGKILL");
      } catch { /* gone */ }
    }
    rmSync(state, { recursive: true, force: true });
  }
}

Deno.test({
  name: "browser: open, click, type, snapshot, screenshot, console; stop leaves nothing",
  ignore,
}, async () => {
  await withState(async (state) => {
    const reg = await openBrowserRegistry(state);
    try {
      const opened = await reg.call("open_url_site", { url: "/" }) as Result;
      assert.notEqual(opened.isError, true, textOf(opened));
      assert.match(textOf(opened), /Opened http:\/\/127\.0\.0\.1:\d+\/ \(title: "Counter"\)/);
      const main = chromiumMain(state);
      assert.ok(main !== undefined, "no Chromium main process carries the marker");
      // DevTools over the pipe: no port another local process could drive the browser with.
      assert.match(procText(main, "cmdline"), /--remote-debugging-pipe/);
      assert.doesNotMatch(procText(main, "cmdline"), /--remote-debugging-port/);
      const tree = markedProcesses(state);
      assert.ok(tree.length >= 3, "expected the harness, Chromium and its helpers");
      // Confined: every process of the tree (the harness serving the page included) runs
      // in a network namespace of its own, where only the session's loopback exists.
      const ns = (pid: number | "self") => Deno.readLinkSync(`/proc/${pid}/ns/net`);
      for (const pid of tree) {
        if (procText(pid, "cmdline").startsWith("/usr/bin/bwrap")) continue;
        assert.notEqual(ns(pid), ns("self"), `${pid} shares the host's network namespace`);
      }
      const group = pgidOf(main);
      // Chromium's crash handlers (chrome_crashpad_handler) setsid themselves; every other
      // process keeps the session's group, and the escapees carry its tag.
      for (const pid of tree) {
        if ((pgidOf(pid) ?? group) === group) continue;
        assert.match(procText(pid, "cmdline"), /chrome_crashpad_handler/, `${pid} left the group`);
        assert.ok(procText(pid, "environ").includes(`${GROUP_TAG_VAR}=`), `${pid} lost the tag`);
      }

      for (let i = 0; i < 2; i++) {
        assert.equal(
          textOf(await reg.call("click_site", { selector: "#add" }) as Result),
          "Clicked.",
        );
      }
      const typed = await reg.call("type_text_site", { selector: "#name", text: "Ada" }) as Result;
      assert.equal(textOf(typed), "Typed.");
      const snap = textOf(await reg.call("snapshot_site", {}) as Result);
      assert.match(snap, /span#count\n\s+"2"/);
      assert.match(snap, /input#name value="Ada"/);
      assert.match(snap, /"Hello, Ada!"/);

      const shot = await reg.call("screenshot_site", {}) as Result;
      const png = pngOf(shot);
      assert.deepEqual(decodePng(png), { width: 800, height: 600 });
      assert.ok(png.length <= 4 * 1024 * 1024);
      const out = Deno.env.get("TOOLHOST_BROWSER_SCREENSHOT");
      if (out !== undefined) writeFileSync(out, png);

      const logs = textOf(await reg.call("console_logs_site", {}) as Result);
      assert.match(logs, /info: counter page ready/);
      assert.match(logs, /log: count is 2/);

      for (
        const url of [
          "https://example.com/",
          "file:///etc/passwd",
          "javascript:1",
          "data:text/html,x",
        ]
      ) {
        const r = await reg.call("open_url_site", { url }) as Result;
        assert.equal(r.isError, true, `${url} was not refused`);
        assert.match(textOf(r), /open_url: /);
      }
      const inScope = await reg.call("open_url_site", {
        url: `file://${WORKSPACE}/site/index.html`,
      }) as Result;
      assert.notEqual(inScope.isError, true, textOf(inScope));
      // Served by the harness's app from a file it opened and checked, not opened by Chromium.
      assert.match(
        textOf(inScope),
        /Opened http:\/\/127\.0\.0\.1:\d+\/files\/[0-9a-f]{32}\/index\.html /,
      );
    } finally {
      await reg.close();
    }
  });
});

Deno.test({
  name: "browser: through `serve` with the MCP SDK client, a screenshot is an MCP image",
  ignore,
}, async () => {
  await withState(async (state) => {
    const repo = new URL("../../", import.meta.url).pathname;
    const transport = new StdioClientTransport({
      command: Deno.execPath(),
      args: [
        "run",
        "-A",
        "--config",
        `${repo}deno.json`,
        `${repo}cli.ts`,
        "serve",
        "--repo",
        WORKSPACE,
        "--eval",
        "site/review",
        "--state-dir",
        state,
      ],
      env: { ...Deno.env.toObject(), ...toolEnv() },
      stderr: "ignore",
    });
    const client = new Client({ name: "browser-test", version: "1" });
    await client.connect(transport);
    try {
      const names = (await client.listTools()).tools.map((t) => t.name);
      for (const n of ["open_url_site", "click_site", "type_text_site", "screenshot_site"]) {
        assert.ok(names.includes(n), `${n} is not listed`);
      }
      const call = async (name: string, args: Record<string, unknown>) =>
        await client.callTool({ name, arguments: args }) as Result;
      assert.notEqual((await call("open_url_site", { url: "/" })).isError, true);
      assert.equal(textOf(await call("click_site", { selector: "#add" })), "Clicked.");
      assert.equal(
        textOf(await call("type_text_site", { selector: "#name", text: "Bo" })),
        "Typed.",
      );
      assert.match(
        textOf(await call("snapshot_site", {})),
        /span#count\n\s+"1"[\s\S]*"Hello, Bo!"/,
      );
      const shot = await call("screenshot_site", {});
      assert.deepEqual(decodePng(pngOf(shot)), { width: 800, height: 600 });
    } finally {
      await client.close();
    }
  });
});

Deno.test({
  name: "browser: `tools check` shows the session and its six tools confined, network off",
  ignore: noSandbox !== undefined,
}, async () => {
  const repo = new URL("../../", import.meta.url).pathname;
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--config", `${repo}deno.json`, `${repo}cli.ts`, "tools", "check"],
    cwd: WORKSPACE,
    env: toolEnv(),
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(out.stdout);
  assert.equal(out.code, 0, text + new TextDecoder().decode(out.stderr));
  const confined = "bubblewrap fs=read net=off";
  for (const t of ["open_url", "click", "type_text", "snapshot", "screenshot", "console_logs"]) {
    assert.match(text, new RegExp(`^  ${t}_site +ready  json, ${confined}$`, "m"), t);
  }
  assert.match(text, new RegExp(`^  browser_site +ready  session, ${confined}$`, "m"));
  assert.doesNotMatch(text, /unconfined/);
});

function sandboxMissing(): string | undefined {
  const s = sandboxSupport();
  return s.ok ? undefined : s.reason;
}
