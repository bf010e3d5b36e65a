import assert from "node:assert/strict";
import { requestLine, serveLines } from "../../harness-kit/socket_rpc.ts";

Deno.test("serveLines replaces a file left at the socket path, and removes it on close", async () => {
  const dir = Deno.makeTempDirSync();
  const path = `${dir}/harness.sock`;
  try {
    Deno.writeTextFileSync(path, "left by a harness that died");
    const server = await serveLines(path, (m) => Promise.resolve({ reply: { echo: m } }));
    assert.deepEqual(await requestLine(path, { n: 1 }), { echo: { n: 1 } });
    await server.close();
    assert.throws(() => Deno.lstatSync(path), Deno.errors.NotFound);
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});
