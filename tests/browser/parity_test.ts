/**
 * examples/browser and the `toolhost init harness NAME --template browser` scaffold are
 * two implementations of one harness (TypeScript with harness-kit; plain Node.js). This
 * file keeps them in step by running both through the same table — it fails as soon as
 * one drifts: the bound-tool set and input schemas, the confinement, what each action
 * returns (page, click, type, snapshot, a screenshot that decodes as an 800×600 PNG of at
 * most 4 MiB, console lines), the URL scope rule (own app, `file:` only inside the scope,
 * never through a symlink, everything else refused), a page that cannot reach the host's
 * loopback (confined), the 64 KiB snapshot and console
 * bounds with their markers, the downscale of a screenshot above 4 MiB, and `CHROMIUM`
 * naming the browser. SKIPs with the reason when Chromium or bubblewrap is missing.
 */
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { type AddressInfo, createServer } from "node:net";
import { sandboxSupport } from "../../lib/sandbox/detect.ts";
import { loadWorkspace } from "../../lib/workspace/load_workspace.ts";
import { Page as ExamplePage } from "../../examples/browser/site/harness/page.ts";
import type { Cdp } from "../../examples/browser/site/harness/cdp.ts";
import { chromiumMain, chromiumMissing, decodePng, markedProcesses, waitFor } from "./_helpers.ts";
import { ACTIONS, LABELS, makeSubject, openSubject, type Subject } from "./_subjects.ts";

const missing = chromiumMissing();
if (missing !== undefined) console.log(`SKIP tests/browser/parity_test.ts (sessions): ${missing}`);
const support = sandboxSupport();
const noSandbox = support.ok ? undefined : support.reason;
if (noSandbox !== undefined) {
  console.log(`SKIP tests/browser/parity_test.ts (confined sessions): ${noSandbox}`);
}

type Block = { type: string; text?: string; data?: unknown; mimeType?: string };
type Result = { content: Block[]; isError?: boolean };

function textOf(r: Result): string {
  return r.content.filter((b) => b.type === "text").map((b) => b.text).join("\n");
}

/** Both subjects in a fresh folder; removed (and their browser trees checked) after. */
async function withSubjects(body: (s: Subject[], tmp: string) => Promise<void>): Promise<void> {
  const tmp = mkdtempSync(join(tmpdir(), "toolhost-browser-parity-"));
  try {
    const subjects = [];
    for (const label of LABELS) subjects.push(await makeSubject(label, join(tmp, label)));
    await body(subjects, tmp);
    assert.ok(await waitFor(() => markedProcesses(tmp).length === 0), "a browser process was left");
  } finally {
    for (const pid of markedProcesses(tmp)) {
      try {
        Deno.kill(pid, "SIGKILL");
      } catch { /* gone */ }
    }
    rmSync(tmp, { recursive: true, force: true });
  }
}

Deno.test("browser parity: the same six bound tools, input schemas and confinement", async () => {
  await withSubjects(async (subjects) => {
    const seen: Record<string, unknown>[] = [];
    for (const s of subjects) {
      const reg = await openSubject(s, join(s.root, ".state"));
      try {
        // The Artifact's own tools but its `read` built-in (the agent-eval tools aside).
        const listed = reg.list().filter((t) =>
          t.name.endsWith(`_${s.artifact}`) && t.name !== `read_${s.artifact}`
        );
        assert.deepEqual(listed.map((t) => t.name), ACTIONS.map(s.tool), s.label);
        seen.push(Object.fromEntries(ACTIONS.map((a, i) => [a, listed[i].inputSchema])));
      } finally {
        await reg.close();
      }
      const ws = await loadWorkspace(s.root);
      const art = ws.artifacts.get(s.artifact)!;
      const policy = art.sessions[s.session].sandbox;
      assert.deepEqual(
        { mode: policy?.mode, network: policy?.network, read: policy?.read },
        {
          mode: "read",
          network: false,
          read: ["/etc/chromium.d", "/etc/chromium", "/etc/fonts"],
        },
        s.label,
      );
      for (const a of ACTIONS) {
        const decl = art.agentTools[s.tool(a).slice(0, -(s.artifact.length + 1))];
        assert.ok(decl?.type === "command" && decl.session === s.session, `${s.label} ${a}`);
      }
    }
    assert.deepEqual(seen[0], seen[1], "the input schemas differ");
  });
});

/** A TCP listener on the host's loopback that counts the connections it gets. */
async function hostListener(): Promise<{ port: number; connections(): number; close(): void }> {
  let count = 0;
  const server = createServer((socket) => {
    count++;
    socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return { port, connections: () => count, close: () => server.close() };
}

/** The session table of one subject: every row runs in one session, in order. */
async function behaviourTable(s: Subject, tmp: string): Promise<void> {
  const state = join(tmp, `${s.label}-state`);
  mkdirSync(s.pages, { recursive: true });
  // CHROMIUM names the browser: a wrapper inside the scope (visible in the sandbox) that
  // adds a flag Chromium ignores, which then shows in the browser's command line.
  const wrapper = join(s.pages, "chromium-wrapper");
  const real = Deno.env.get("CHROMIUM") ?? "chromium";
  writeFileSync(wrapper, `#!/bin/sh\nexec ${real} --toolhost-parity-wrapper "$@"\n`, {
    mode: 0o755,
  });
  writeFileSync(join(s.pages, "a.html"), '<title>A</title><a id="next" href="b.html">next</a>');
  writeFileSync(
    join(s.pages, "big.html"),
    `<title>Big</title><p>${"word ".repeat(30_000)}</p><script>` +
      `for (let i = 0; i < 500; i++) console.log(i + " " + "x".repeat(2000));</script>`,
  );
  writeFileSync(join(tmp, "secret.html"), "<title>S</title><p>TOP-SECRET</p>");
  symlinkSync(join(tmp, "secret.html"), join(s.pages, "link.html"));

  const reg = await openSubject(s, state, { CHROMIUM: wrapper });
  const call = async (action: string, args: Record<string, unknown> = {}) =>
    await reg.call(s.tool(action), args) as Result;
  const ok = async (action: string, args: Record<string, unknown> = {}) => {
    const r = await call(action, args);
    assert.notEqual(r.isError, true, `${s.label} ${action}: ${textOf(r)}`);
    return r;
  };
  try {
    const opened = textOf(await ok("open_url", { url: "/" }));
    assert.match(opened, /^Opened http:\/\/127\.0\.0\.1:\d+\/ \(title: "Counter"\)\.$/);
    const origin = /http:\/\/127\.0\.0\.1:\d+/.exec(opened)![0];
    const main = chromiumMain(state);
    assert.ok(main !== undefined, `${s.label}: no Chromium carries the state dir`);
    const argv = Deno.readTextFileSync(`/proc/${main}/cmdline`).split("\0");
    assert.ok(argv.includes("--toolhost-parity-wrapper"), `${s.label}: CHROMIUM was not used`);

    for (let i = 0; i < 2; i++) {
      assert.equal(textOf(await ok("click", { selector: "#add" })), "Clicked.");
    }
    assert.equal(textOf(await ok("type_text", { selector: "#name", text: "Ada" })), "Typed.");
    const noMatch = await call("click", { selector: "#nothing" });
    assert.equal(noMatch.isError, true);
    assert.equal(textOf(noMatch), "No element matches the selector.");
    const noFocus = await call("type_text", { selector: "#nothing", text: "x" });
    assert.equal(noFocus.isError, true);
    assert.equal(textOf(noFocus), "No focusable element matches the selector.");

    const snap = textOf(await ok("snapshot"));
    assert.ok(snap.startsWith(`Counter\n${origin}/\nbody\n`), snap);
    assert.match(snap, /span#count\n\s+"2"/);
    assert.match(snap, /input#name value="Ada"/);
    assert.match(snap, /"Hello, Ada!"/);

    const shot = await ok("screenshot");
    const image = shot.content.find((b) => b.type === "image");
    assert.equal(image?.mimeType, "image/png");
    const png = Buffer.from(String(image!.data), "base64");
    assert.ok(png.length <= 4 * 1024 * 1024);
    assert.deepEqual(decodePng(png), { width: 800, height: 600 });
    const meta = shot.content.find((b) => b.type === "json")?.data;
    assert.deepEqual(meta, { bytes: png.length, width: 800, height: 600, scale: 1 });

    assert.equal(
      textOf(await ok("console_logs")),
      "info: counter page ready\nlog: count is 1\nlog: count is 2",
    );
    assert.equal(textOf(await ok("console_logs")), "No console output since the last call.");

    // The URL scope rule.
    for (
      const url of [
        "https://example.com/",
        "http://127.0.0.1:1/",
        origin.replace("http://", "http://user:pw@") + "/",
        "ftp://127.0.0.1/",
        "chrome://version",
        "javascript:1",
        "data:text/html,x",
        "file:///etc/passwd",
        pathToFileURL(join(tmp, "secret.html")).href,
        pathToFileURL(join(s.pages, "link.html")).href,
        pathToFileURL(s.pages).href,
        "http://[::1",
      ]
    ) {
      const r = await call("open_url", { url });
      assert.equal(r.isError, true, `${s.label}: ${url} was not refused`);
      assert.match(textOf(r), /^open_url: /, url);
    }
    const inScope = textOf(
      await ok("open_url", { url: pathToFileURL(join(s.pages, "a.html")).href }),
    );
    assert.match(
      inScope,
      /^Opened http:\/\/127\.0\.0\.1:\d+\/files\/[0-9a-f]{32}\/a\.html \(title: "A"\)\.$/,
    );

    // Confined: a page's own requests to the host's loopback never arrive (the load event,
    // which open_url waits for, comes after the image's request has failed).
    const host = await hostListener();
    try {
      writeFileSync(
        join(s.pages, "net.html"),
        `<title>Net</title><img src="http://127.0.0.1:${host.port}/pixel.png">`,
      );
      const net = await ok("open_url", { url: pathToFileURL(join(s.pages, "net.html")).href });
      assert.match(textOf(net), /\(title: "Net"\)/);
      assert.equal(host.connections(), 0, `${s.label}: the page reached the host's loopback`);
    } finally {
      host.close();
    }

    // The 64 KiB text rule, with its markers.
    await ok("open_url", { url: pathToFileURL(join(s.pages, "big.html")).href });
    const cut = textOf(await ok("snapshot"));
    assert.ok(Buffer.byteLength(cut) <= 64 * 1024, `${s.label}: the snapshot passed 64 KiB`);
    assert.match(cut, /\n\[snapshot truncated: \d+ bytes, first part shown\]$/);
    const logs = textOf(await ok("console_logs"));
    assert.ok(Buffer.byteLength(logs) <= 64 * 1024, `${s.label}: the console log passed 64 KiB`);
    assert.match(logs, /^\[300 older entries dropped\]\nlog: 300 x+\n/);
    assert.equal(logs.split("\n")[1].length, 1000, "an entry was not cut to 1000 characters");
    assert.match(logs, /\n\[console log truncated: \d+ bytes, first part shown\]$/);
    assert.equal(textOf(await ok("console_logs")), "No console output since the last call.");
  } finally {
    await reg.close();
  }
  assert.ok(
    await waitFor(() => markedProcesses(state).length === 0),
    `${s.label}: a process was left`,
  );
}

for (const label of LABELS) {
  Deno.test({
    name: `browser parity (${label}): the behaviour table, confined`,
    ignore: missing !== undefined || noSandbox !== undefined,
  }, async () => {
    await withSubjects(async (subjects, tmp) => {
      await behaviourTable(subjects.find((s) => s.label === label)!, tmp);
    });
  });
}

/** A DevTools connection whose PNGs are 8 MiB at full scale (a quarter at half). */
function bigScreenFake(scales: number[]): Cdp {
  return {
    on: () => () => {},
    send: (method: string, params: Record<string, unknown> = {}) => {
      const answers: Record<string, unknown> = {
        "Target.getTargets": { targetInfos: [{ targetId: "t", type: "page" }] },
        "Target.attachToTarget": { sessionId: "s" },
        "Page.getLayoutMetrics": { cssLayoutViewport: { clientWidth: 4000, clientHeight: 4000 } },
      };
      if (method === "Page.captureScreenshot") {
        const scale = (params.clip as { scale: number }).scale;
        scales.push(scale);
        const bytes = Buffer.alloc(Math.round(8 * 1024 * 1024 * scale * scale));
        return Promise.resolve({ data: bytes.toString("base64") });
      }
      return Promise.resolve((answers[method] ?? {}) as Record<string, unknown>);
    },
  } as unknown as Cdp;
}

Deno.test("browser parity: a screenshot above 4 MiB is taken again at half scale until it fits, in both", async () => {
  await withSubjects(async (subjects) => {
    type Shot = { png: Uint8Array; scale: number; width: number; height: number };
    const shots: Record<string, { scales: number[]; shot: Shot }> = {};
    const exampleScales: number[] = [];
    const example = await ExamplePage.attach(bigScreenFake(exampleScales), 4000, 4000);
    shots.example = { scales: exampleScales, shot: await example.screenshot() };
    const scaffold = subjects.find((s) => s.label === "scaffold")!;
    const driver = await import(pathToFileURL(join(scaffold.root, "tools/web_browser.mjs")).href);
    const scaffoldScales: number[] = [];
    const page = new driver.Page(bigScreenFake(scaffoldScales), "s");
    shots.scaffold = { scales: scaffoldScales, shot: await page.screenshot() };
    for (const [label, { scales, shot }] of Object.entries(shots)) {
      assert.deepEqual(scales, [1, 0.5], label);
      assert.equal(shot.scale, 0.5, label);
      assert.deepEqual([shot.width, shot.height], [2000, 2000], label);
      assert.ok(shot.png.length <= 4 * 1024 * 1024, label);
    }
  });
});
