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
