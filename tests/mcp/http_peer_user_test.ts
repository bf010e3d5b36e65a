/**
 * `serve --http` on loopback without `--token-env`: the port is reachable by every local
 * user, and every tool runs with the serving user's authority. Only the serving user's
 * own connections may pass; another user gets 403 before any MCP session exists. With a
 * token, the token is the credential. The other user is `nobody`, reached through
 * `setpriv` (needs root: skipped otherwise).
 */

import assert from "node:assert/strict";
import { tempWorkspace } from "../helpers/workspace.ts";
import { E2E_FILES, e2eToml } from "./_helpers.ts";
import { INIT_BODY, rawStatus, serveHttp } from "./_http_serve.ts";

const root = Deno.uid() === 0;

/** The HTTP status a POST of `initialize` gets when curl runs as `nobody`. */
async function statusAsNobody(url: string, token?: string): Promise<string> {
  const auth = token === undefined ? [] : ["-H", `Authorization: Bearer ${token}`];
  const out = await new Deno.Command("setpriv", {
    args: [
      "--reuid=65534",
      "--regid=65534",
      "--clear-groups",
      "curl",
      "-s",
      "-o",
      "/dev/null",
      "-w",
      "%{http_code}",
      "-H",
      "Content-Type: application/json",
      "-H",
      "Accept: application/json, text/event-stream",
      ...auth,
      "-X",
      "POST",
      url,
      "-d",
      INIT_BODY,
    ],
    stdout: "piped",
    stderr: "null",
  }).output();
  return new TextDecoder().decode(out.stdout).trim();
}

Deno.test({
  name: "serve --http without a token: another local user is refused, the serving user is not",
  ignore: !root,
  async fn() {
    await using tmp = await tempWorkspace("", E2E_FILES);
    Deno.writeTextFileSync(`${tmp.root}/toolhost.toml`, e2eToml(tmp.root));
    const served = await serveHttp(tmp.root);
    try {
      assert.equal(await statusAsNobody(served.url), "403");
      const headers = {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      };
      assert.equal(await rawStatus(served.url, headers, INIT_BODY), 200);
    } finally {
      await served.stop();
    }
  },
});

/**
 * What the server sent on a connection `nobody` opens to `url`'s port and sends nothing
 * on, when the server closed it before `capMs`; undefined when it was still open then
 * (bash opens it, `cat` reads it to its end).
 */
async function closedWhileSilent(url: string, capMs: number): Promise<string | undefined> {
  const { port } = new URL(url);
  const child = new Deno.Command("setpriv", {
    args: [
      "--reuid=65534",
      "--regid=65534",
      "--clear-groups",
      "bash",
      "-c",
      'exec 3<>"/dev/tcp/127.0.0.1/$0" && exec cat <&3',
      port,
    ],
    stdin: "null",
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const output = new Response(child.stdout).text();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const capped = new Promise<undefined>((resolve) =>
    timer = setTimeout(() => resolve(undefined), capMs)
  );
  try {
    return await Promise.race([child.status.then(() => output), capped]);
  } finally {
    clearTimeout(timer);
    try {
      child.kill("SIGKILL");
    } catch { /* exited */ }
    await child.status;
  }
}

Deno.test({
  name: "serve --http without a token: another user's connection is closed before it sends a byte",
  ignore: !root,
  async fn() {
    // Holding connections open (a flood of idle ones, or headers sent a byte at a time)
    // would cost serve a descriptor each until the HTTP header timeout (a minute): enough
    // of them left the tools none. Closed as soon as the peer's owner is known instead.
    await using tmp = await tempWorkspace("", E2E_FILES);
    Deno.writeTextFileSync(`${tmp.root}/toolhost.toml`, e2eToml(tmp.root));
    const served = await serveHttp(tmp.root);
    try {
      // The cap is far above the few milliseconds this takes and below the header timeout.
      const answer = await closedWhileSilent(served.url, 40_000);
      assert.ok(answer?.startsWith("HTTP/1.1 403 "), "closed at once, with a 403");
      const headers = {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      };
      assert.equal(await rawStatus(served.url, headers, INIT_BODY), 200);
    } finally {
      await served.stop();
    }
  },
});

Deno.test({
  name: "serve --http with a token: the token is the credential, whoever holds it",
  ignore: !root,
  async fn() {
    await using tmp = await tempWorkspace("", E2E_FILES);
    Deno.writeTextFileSync(`${tmp.root}/toolhost.toml`, e2eToml(tmp.root));
    const served = await serveHttp(tmp.root, ["--token-env", "PEER_TEST_TOKEN"], {
      PEER_TEST_TOKEN: "peer-test-token-0123456789",
    });
    try {
      assert.equal(await statusAsNobody(served.url, "peer-test-token-0123456789"), "200");
      assert.equal(await statusAsNobody(served.url), "401");
    } finally {
      await served.stop();
    }
  },
});
