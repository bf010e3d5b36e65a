/**
 * The browser example's bounds: a snapshot and the console log stay within the 64 KiB
 * text rule with a truncation marker (200 console entries of at most 1000 characters,
 * older ones counted as dropped), and a screenshot above 4 MiB is downscaled until it
 * fits. The cuts are checked directly (a fake DevTools connection drives the downscale,
 * which an 800×600 viewport never needs: its PNG is at most ~1.9 MB) and through the
 * real session on a page built to overflow them (SKIPs with the reason without Chromium).
 */
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { Cdp } from "../../examples/browser/site/harness/cdp.ts";
import {
  boundText,
  MAX_CONSOLE_CHARS,
  MAX_IMAGE_BYTES,
  MAX_SNAPSHOT_BYTES,
  Page,
} from "../../examples/browser/site/harness/page.ts";
import {
  chromiumMissing,
  decodePng,
  exampleCopy,
  markedProcesses,
  openRegistryAt,
  waitFor,
} from "./_helpers.ts";

const missing = chromiumMissing();
if (missing !== undefined) console.log(`SKIP tests/browser/bounds_test.ts (session): ${missing}`);

type Result = { content: { type: string; text?: string }[]; isError?: boolean };

function textOf(r: Result): string {
  return r.content.filter((b) => b.type === "text").map((b) => b.text).join("\n");
}

Deno.test("boundText: at most the bound in UTF-8 bytes, marked, never a split character", () => {
  assert.equal(boundText("short", 100, "x"), "short");
  const cut = boundText("é".repeat(50_000), MAX_SNAPSHOT_BYTES, "snapshot");
  assert.ok(Buffer.byteLength(cut) <= MAX_SNAPSHOT_BYTES);
  assert.match(cut, /\n\[snapshot truncated: 100000 bytes, first part shown\]$/);
  assert.doesNotMatch(cut, /\uFFFD/);
});

Deno.test("screenshot: a PNG above 4 MiB is taken again at half scale until it fits", async () => {
  const scales: number[] = [];
  const fake = {
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
        // 8 MiB at full scale, a quarter of that at half: only the second fits.
        const bytes = Buffer.alloc(Math.round(8 * 1024 * 1024 * scale * scale));
        return Promise.resolve({ data: bytes.toString("base64") });
      }
      return Promise.resolve((answers[method] ?? {}) as Record<string, unknown>);
    },
  } as unknown as Cdp;
  const page = await Page.attach(fake, 4000, 4000);
  const { png, scale } = await page.screenshot();
  assert.deepEqual(scales, [1, 0.5]);
  assert.equal(scale, 0.5);
  assert.ok(png.length <= MAX_IMAGE_BYTES);
});

Deno.test({
  name: "browser: a page built to overflow them gets a cut, marked snapshot and console log",
  ignore: missing !== undefined,
}, async () => {
  const tmp = mkdtempSync(join(tmpdir(), "toolhost-browser-bounds-"));
  const ws = join(tmp, "ws");
  const state = join(tmp, "state");
  try {
    exampleCopy(ws, { unconfined: true });
    writeFileSync(
      join(ws, "site/big.html"),
      `<title>Big</title><p>${"word ".repeat(30_000)}</p><script>` +
        `for (let i = 0; i < 500; i++) console.log(i + " " + "x".repeat(2000));</script>`,
    );
    const reg = await openRegistryAt(ws, state);
    try {
      const opened = await reg.call("open_url_site", {
        url: pathToFileURL(join(ws, "site/big.html")).href,
      }) as Result;
      assert.notEqual(opened.isError, true, textOf(opened));
      const snap = textOf(await reg.call("snapshot_site", {}) as Result);
      assert.ok(Buffer.byteLength(snap) <= MAX_SNAPSHOT_BYTES, "the snapshot passed 64 KiB");
      assert.match(snap, /\n\[snapshot truncated: \d+ bytes, first part shown\]$/);
      const logs = textOf(await reg.call("console_logs_site", {}) as Result);
      assert.ok(Buffer.byteLength(logs) <= MAX_SNAPSHOT_BYTES, "the console log passed 64 KiB");
      assert.match(logs, /^\[300 older entries dropped\]\nlog: 300 x+\n/);
      assert.match(logs, /\n\[console log truncated: \d+ bytes, first part shown\]$/);
      const first = logs.split("\n")[1];
      assert.equal(first.length, MAX_CONSOLE_CHARS, "an entry was not cut to 1000 characters");
      const again = textOf(await reg.call("console_logs_site", {}) as Result);
      assert.equal(again, "No console output since the last call.");
    } finally {
      await reg.close();
    }
    assert.ok(
      await waitFor(() => markedProcesses(state).length === 0),
      "a browser process was left",
    );
  } finally {
    for (const pid of markedProcesses(state)) {
      try {
        Deno.kill(pid, "SIGKILL");
      } catch { /* gone */ }
    }
    rmSync(tmp, { recursive: true, force: true });
  }
});

Deno.test("decodePng: the README's screenshot decodes; a cut or corrupted one does not", () => {
  const png = Deno.readFileSync(new URL("../../docs/browser_session.png", import.meta.url));
  assert.deepEqual(decodePng(png), { width: 800, height: 600 });
  assert.throws(() => decodePng(png.subarray(0, png.length - 40)));
  const bent = png.slice();
  bent.set([0, 0, 0x10, 0], 16); // IHDR width 4096: the pixel data no longer matches
  assert.throws(() => decodePng(bent), /does not match/);
  assert.throws(() => decodePng(new TextEncoder().encode("not a png at all, not at all")));
});
