/**
 * open_url's `file:` URLs in examples/browser cannot lead Chromium out of the scope: a
 * symlink out of the scope is refused, and a page's sibling swapped for such a symlink
 * after open_url's check (the browser loads it later) is never shown. The session runs
 * unconfined here, so only the harness's own check stands between Chromium and the
 * outside file. SKIPs with the reason when Chromium is missing.
 */
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import {
  chromiumMissing,
  exampleCopy,
  markedProcesses,
  openRegistryAt,
  waitFor,
} from "./_helpers.ts";

const missing = chromiumMissing();
if (missing !== undefined) console.log(`SKIP tests/browser/file_url_test.ts: ${missing}`);

type Result = { content: { type: string; text?: string }[]; isError?: boolean };

function textOf(r: Result): string {
  return r.content.filter((b) => b.type === "text").map((b) => b.text).join("\n");
}

Deno.test({
  name: "browser: a file: page's sibling swapped for a symlink out of the scope is never shown",
  ignore: missing !== undefined,
}, async () => {
  const tmp = mkdtempSync(join(tmpdir(), "toolhost-browser-file-"));
  const ws = join(tmp, "ws");
  const state = join(tmp, "state");
  try {
    exampleCopy(ws, { unconfined: true });
    const pages = join(ws, "site/pages");
    mkdirSync(pages);
    writeFileSync(join(pages, "a.html"), '<title>A</title><a id="next" href="b.html">next</a>');
    writeFileSync(join(pages, "b.html"), "<title>B</title><p>inside</p>");
    writeFileSync(join(tmp, "secret.html"), "<title>S</title><p>TOP-SECRET</p>");
    symlinkSync(join(tmp, "secret.html"), join(pages, "link.html"));
    const reg = await openRegistryAt(ws, state);
    try {
      const viaLink = await reg.call("open_url_site", {
        url: pathToFileURL(join(pages, "link.html")).href,
      }) as Result;
      assert.equal(viaLink.isError, true, "a symlink out of the scope was opened");
      assert.match(textOf(viaLink), /^open_url: /);

      const a = await reg.call("open_url_site", {
        url: pathToFileURL(join(pages, "a.html")).href,
      }) as Result;
      assert.notEqual(a.isError, true, textOf(a));
      // After open_url checked a.html, b.html becomes a symlink to the secret.
      rmSync(join(pages, "b.html"));
      symlinkSync(join(tmp, "secret.html"), join(pages, "b.html"));
      assert.equal(
        textOf(await reg.call("click_site", { selector: "#next" }) as Result),
        "Clicked.",
      );
      let snap = "";
      for (let i = 0; i < 600; i++) {
        snap = textOf(await reg.call("snapshot_site", {}) as Result);
        if (!snap.startsWith("A\n")) break;
        await new Promise((r) => setTimeout(r, 100));
      }
      assert.doesNotMatch(snap, /TOP-SECRET/);
      assert.match(snap, /refused/);
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
