/**
 * `serve --http` on an address it cannot listen on names the address and the fix, as an
 * invalid invocation (exit 2), never as an "internal error".
 *
 * @module
 */

import assert from "node:assert/strict";
import { createServer } from "node:net";
import type { AddressInfo } from "node:net";
import { EXAMPLES, runCapture } from "../helpers/cli.ts";
import { checkAllowedOrigins, listenError } from "../../lib/mcp/http_guard.ts";

Deno.test("serve --http on a port already in use says so and exits 2", async () => {
  const taken = createServer();
  await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve));
  const port = (taken.address() as AddressInfo).port;
  const stateDir = await Deno.makeTempDir({ prefix: "toolhost-listen-" });
  try {
    const r = await runCapture([
      ...["serve", "--eval", "app/review", "--repo", EXAMPLES, "--state-dir", stateDir],
      ...["--http", `127.0.0.1:${port}`],
    ]);
    assert.equal(r.code, 2, r.err);
    assert.equal(
      r.err,
      `toolhost: --http 127.0.0.1:${port}: the port is already in use (another toolhost ` +
        "serve, or another server); stop it or choose another port (port 0 picks a free one) " +
        "[INVALID_INVOCATION]\n",
    );
  } finally {
    await new Promise((resolve) => taken.close(resolve));
    await Deno.remove(stateDir, { recursive: true });
  }
});

Deno.test("listen errors: privileged port and foreign address are named; others pass", () => {
  const err = (code: string) => Object.assign(new Error(`listen ${code}`), { code });
  const bind = { host: "::1", port: 80 };
  assert.match(
    (listenError(err("EACCES"), bind) as Error).message,
    /^--http \[::1\]:80: not allowed to listen there \(ports below 1024 need privileges\)/,
  );
  assert.match(
    (listenError(err("EADDRNOTAVAIL"), bind) as Error).message,
    /the host is not an address of this machine/,
  );
  const other = err("EMFILE");
  assert.equal(listenError(other, bind), other);
});

Deno.test("serve --allow-origin: a value no browser sends as Origin is refused (exit 2)", async () => {
  for (const bad of ["example.com", "https://app.example.com/", "https://a.example/x", "null"]) {
    // An eval that does not exist: without the check serve stops there (never serving).
    const r = await runCapture([
      ...["serve", "--eval", "app/none", "--repo", EXAMPLES],
      ...["--http", "127.0.0.1:0", "--allow-origin", bad],
    ]);
    assert.equal(r.code, 2, bad);
    assert.match(r.err, /--allow-origin ".*": not an origin; give the scheme, host and port/);
  }
  // What browsers send passes (case aside: origins are compared in lower case).
  checkAllowedOrigins(["https://App.example.com", "http://localhost:3000", "http://[::1]:8080"]);
});
