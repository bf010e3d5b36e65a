import assert from "node:assert/strict";
import { testTool } from "../../harness-kit/mod.ts";

const TOOL = new URL("./fixtures/echo_tool.ts", import.meta.url).pathname;
const DENO = ["run", "-A", "--no-config", "--quiet", TOOL];

Deno.test("testTool runs a runJsonTool tool through the real registry", async () => {
  await using tool = await testTool({
    command: "deno",
    args: DENO,
    inputSchema: {
      type: "object",
      properties: { mode: { type: "string" }, n: { type: "integer" }, name: { type: "string" } },
      additionalProperties: false,
    },
  });
  assert.deepEqual(await tool.call({ name: "ann" }), {
    content: [{ type: "text", text: "hello ann" }, {
      type: "json",
      data: { artifactId: "app", session: null },
    }],
    isError: false,
  });
  assert.deepEqual(await tool.call({ mode: "throw" }), {
    content: [{ type: "text", text: "Pick a smaller range." }],
    isError: true,
  });
  assert.deepEqual(await tool.call({ mode: "log" }), {
    content: [{ type: "text", text: "quiet" }],
    isError: false,
  });
  assert.deepEqual(await tool.call({ mode: "big" }), {
    content: [{
      type: "text",
      text: "The tool's result was too large: text block 1 has 65537 bytes; the limit is 65536.",
    }],
    isError: true,
  });
  assert.equal((await tool.call({ mode: "blocks", n: 32 })).content.length, 32);
  assert.match(
    JSON.stringify(await tool.call({ mode: "blocks", n: 33 })),
    /33 blocks; the limit is 32/,
  );
  // harness-kit's own check (toolhost's schema here is looser): values never echoed.
  const r = await tool.call({ name: "a-very-long-secret-name-value" });
  assert.equal(r.isError, true);
  assert.equal(JSON.stringify(r).includes("secret"), false);
});

Deno.test("a harness-kit tool run by hand exits 2 on a stdin that is not a request", async () => {
  const out = await new Deno.Command(Deno.execPath(), {
    args: DENO,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  })
    .spawn();
  const w = out.stdin.getWriter();
  await w.write(new TextEncoder().encode("hello"));
  await w.close();
  const { code, stdout, stderr } = await out.output();
  assert.equal(code, 2);
  assert.equal(new TextDecoder().decode(stdout), "");
  assert.match(new TextDecoder().decode(stderr), /not a JSON request/);
});
