/**
 * `toolhost serve`'s exit status, the same on stdio and over HTTP: 0 when the stdio client
 * closes the connection; 128 + the signal's number (130, 143, 129) when SIGINT, SIGTERM or
 * SIGHUP ended the server — always after "cleanup confirmed", as for `tools call`.
 * (Over HTTP a SIGTERM drain that lets every open request finish exits 0, one cut short 143;
 * serve_http_drain_test.ts.)
 */

import assert from "node:assert/strict";
import { BASE_TOML, tempWorkspace } from "../helpers/workspace.ts";
import { serveArgs, waitFor } from "./_helpers.ts";
import { INIT_BODY } from "./_http_serve.ts";

const TOML = `${BASE_TOML}
[artifacts.app.views.agent_tools.read]
builtin = "read"
`;

/** Start `serve` on stdio (or `--http`), wait until it serves, then end it with `end`. */
async function exitAfter(
  end: "stdin closed" | "SIGINT" | "SIGTERM" | "SIGHUP",
  http = false,
): Promise<{ code: number; stderr: string }> {
  await using tmp = await tempWorkspace(TOML, { "app/README.md": "# app\n" });
  const child = new Deno.Command(Deno.execPath(), {
    args: serveArgs(
      "--eval",
      "app/review",
      "--repo",
      tmp.root,
      "--state-dir",
      `${tmp.root}/.state`,
      ...(http ? ["--http", "127.0.0.1:0"] : []),
    ),
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  let stderr = "";
  let stdout = "";
  const pumps = Promise.all([
    (async () => {
      for await (const t of child.stderr.pipeThrough(new TextDecoderStream())) stderr += t;
    })(),
    (async () => {
      for await (const t of child.stdout.pipeThrough(new TextDecoderStream())) stdout += t;
    })(),
  ]);
  const stdin = child.stdin.getWriter();
  try {
    // Caps on conditions, not deadlines: serving starts whenever a busy machine lets it.
    assert.ok(await waitFor(() => /serving eval/.test(stderr), 120_000), stderr);
    if (!http) {
      // Answered once connected: by then the server handles signals.
      await stdin.write(new TextEncoder().encode(INIT_BODY + "\n"));
      assert.ok(await waitFor(() => /"id":1/.test(stdout), 120_000), stderr);
    }
    if (end === "stdin closed") await stdin.close();
    else child.kill(end);
    const { code } = await child.status;
    await pumps;
    return { code, stderr };
  } finally {
    try {
      child.kill("SIGKILL");
    } catch { /* exited */ }
    await stdin.close().catch(() => {});
  }
}

const CASES = [
  { end: "stdin closed", http: false, code: 0, log: /connection ended \(stdin closed\)/ },
  { end: "SIGINT", http: false, code: 130, log: /connection ended \(SIGINT\)/ },
  { end: "SIGTERM", http: false, code: 143, log: /connection ended \(SIGTERM\)/ },
  { end: "SIGHUP", http: false, code: 129, log: /connection ended \(SIGHUP\)/ },
  { end: "SIGINT", http: true, code: 130, log: /SIGINT: closing/ },
  { end: "SIGTERM", http: true, code: 0, log: /SIGTERM: draining/ }, // a completed drain
] as const;

// One test, the servers side by side: six sequential starts cost the suite half a minute.
Deno.test("serve exits 0 when the stdio client leaves, 128 + N after a signal, after cleanup", async () => {
  const results = await Promise.all(CASES.map((c) => exitAfter(c.end, c.http)));
  CASES.forEach((c, i) => {
    const { code, stderr } = results[i];
    const what = `${c.http ? "--http" : "stdio"}, ${c.end}`;
    assert.equal(code, c.code, `${what}:\n${stderr}`);
    assert.match(stderr, new RegExp(`${c.log.source}[^]*cleanup confirmed`), what);
  });
});
