import assert from "node:assert/strict";
import {
  checkBind,
  checkRequest,
  isLoopbackHost,
  loopbackOrigins,
  parseBind,
} from "../../lib/mcp/http_guard.ts";
import { InvocationError } from "../../lib/errors/errors.ts";

Deno.test("parseBind: host:port forms; port 65535 ok, 65536 refused", () => {
  assert.deepEqual(parseBind("127.0.0.1:8080"), { host: "127.0.0.1", port: 8080 });
  assert.deepEqual(parseBind("localhost:0"), { host: "localhost", port: 0 });
  assert.deepEqual(parseBind("[::1]:65535"), { host: "::1", port: 65535 });
  assert.deepEqual(parseBind("0.0.0.0:65534"), { host: "0.0.0.0", port: 65534 });
  for (const bad of ["127.0.0.1:65536", "8080", "::1:80", "[nothex]:80", "host:", ":80"]) {
    assert.throws(() => parseBind(bad), InvocationError, bad);
  }
  assert.throws(() => parseBind("127.0.0.1:99999"), /the port must be 0 to 65535/);
});

Deno.test("isLoopbackHost", () => {
  for (const h of ["localhost", "127.0.0.1", "127.255.0.9", "::1", "[::1]", "::ffff:127.0.0.1"]) {
    assert.equal(isLoopbackHost(h), true, h);
  }
  for (const h of ["0.0.0.0", "10.0.0.1", "::", "example.com", "128.0.0.1", "::ffff:10.0.0.1"]) {
    assert.equal(isLoopbackHost(h), false, h);
  }
});

Deno.test("checkBind: non-loopback needs --allow-remote and a token", () => {
  checkBind({ host: "127.0.0.1", port: 1 }, { allowRemote: false, hasToken: false });
  assert.throws(
    () => checkBind({ host: "0.0.0.0", port: 1 }, { allowRemote: false, hasToken: true }),
    /--allow-remote/,
  );
  assert.throws(
    () => checkBind({ host: "0.0.0.0", port: 1 }, { allowRemote: true, hasToken: false }),
    /requires a bearer token/,
  );
  checkBind({ host: "0.0.0.0", port: 1 }, { allowRemote: true, hasToken: true });
  // --allow-remote always requires the token, also on a loopback bind.
  assert.throws(
    () => checkBind({ host: "127.0.0.1", port: 1 }, { allowRemote: true, hasToken: false }),
    /requires a bearer token/,
  );
});

Deno.test("checkRequest: Origin, Host and bearer token", () => {
  const policy = {
    origins: new Set(loopbackOrigins(9000)),
    loopbackHostOnly: true,
    token: "s3cret",
  };
  const auth = { authorization: "Bearer s3cret" };
  assert.equal(checkRequest({ host: "127.0.0.1:9000", ...auth }, policy), undefined);
  assert.equal(
    checkRequest({ host: "localhost:9000", origin: "http://localhost:9000", ...auth }, policy),
    undefined,
  );
  assert.equal(checkRequest({ host: "[::1]:9000", ...auth }, policy), undefined);
  assert.deepEqual(
    checkRequest({ host: "127.0.0.1:9000", origin: "https://evil.example", ...auth }, policy),
    {
      status: 403,
      message: "Origin not allowed",
    },
  );
  assert.equal(
    checkRequest({ host: "127.0.0.1:9000", origin: "http://localhost:9001", ...auth }, policy)
      ?.status,
    403,
  );
  assert.equal(checkRequest({ host: "evil.example:9000", ...auth }, policy)?.status, 403);
  assert.equal(checkRequest({ host: "127.0.0.1:9000" }, policy)?.status, 401);
  assert.equal(
    checkRequest({ host: "127.0.0.1:9000", authorization: "Bearer s3cre" }, policy)?.status,
    401,
  );
  assert.equal(
    checkRequest({ host: "127.0.0.1:9000", authorization: "Bearer s3cret2" }, policy)?.status,
    401,
  );
  assert.equal(
    checkRequest({ host: "127.0.0.1:9000", authorization: "Basic s3cret" }, policy)?.status,
    401,
  );
  const open = { origins: new Set<string>(), loopbackHostOnly: false };
  assert.equal(checkRequest({ host: "example.com" }, open), undefined);
});

Deno.test("checkRequest: the token compare takes any length (digests), and only the token passes", () => {
  const policy = { origins: new Set<string>(), loopbackHostOnly: false, token: "s3cret-token" };
  const status = (authorization: string) => checkRequest({ authorization }, policy)?.status;
  assert.equal(status("Bearer s3cret-token"), undefined);
  assert.equal(status("bearer s3cret-token"), undefined);
  for (const t of ["s3cret-toke", "s3cret-tokenn", "s3cret-tokeN", "x".repeat(10_000), "é"]) {
    assert.equal(status(`Bearer ${t}`), 401, t.slice(0, 20));
  }
});

Deno.test("startHttpServer serves a short bearer token, with a warning that never shows it", async () => {
  const { startHttpServer } = await import("../../lib/mcp/http.ts");
  const { shortTokenWarning } = await import("../../lib/mcp/http_guard.ts");
  const source = {
    list: () => Promise.resolve([]),
    call: () => Promise.resolve({ content: [], isError: false }),
    close: () => Promise.resolve(),
  };
  const lines: string[] = [];
  const http = await startHttpServer({
    bind: { host: "127.0.0.1", port: 0 },
    openSource: () => Promise.resolve(source),
    token: "s3cret",
    tokenSource: "--token-env T",
    log: (l) => lines.push(l),
  });
  await http.close();
  assert.equal(
    lines.filter((l) => /--token-env T: the bearer token is shorter than 16/.test(l)).length,
    1,
  );
  assert.ok(!lines.join("\n").includes("s3cret"));
  assert.equal(shortTokenWarning(15, "x") !== undefined, true);
  assert.equal(shortTokenWarning(16, "x"), undefined);
});
