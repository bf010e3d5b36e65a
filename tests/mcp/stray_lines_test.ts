/**
 * `serve` on stdio answers what the SDK's stdio transport dropped without a word
 * (lib/mcp/stray_lines.ts): a request the message schema refuses gets `-32600` with its
 * id (before, the client waited for ever), and a JSON-RPC batch is taken message by
 * message (before, none of it was answered), as over Streamable HTTP.
 */

import assert from "node:assert/strict";
import type { Buffer } from "node:buffer";
import { PassThrough } from "node:stream";
import { serveStdio } from "../../lib/mcp/stdio.ts";
import { DROPPED_LINE } from "../../lib/mcp/stdio_front.ts";
import { INVALID_REQUEST, strayLine } from "../../lib/mcp/stray_lines.ts";
import type { ToolSource } from "../../lib/mcp/tool_source.ts";
import { waitFor } from "./_helpers.ts";

const SOURCE: ToolSource = {
  list: () =>
    Promise.resolve([{ name: "info", description: "d", inputSchema: { type: "object" } }]),
  call: () => Promise.resolve({ content: [{ type: "text", text: "hi" }], isError: false }),
  close: () => Promise.resolve(),
};

const INIT =
  '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26",' +
  '"capabilities":{},"clientInfo":{"name":"c","version":"1"}}}';

type Answer = { id?: unknown; result?: unknown; error?: { code: number } };

/** Feed `lines` to an in-process stdio `serve`; the answers once `count` arrived. */
async function answers(lines: string[], count: number, logs: string[] = []): Promise<Answer[]> {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  let out = "";
  stdout.on("data", (c: Buffer) => (out += c.toString("utf8")));
  const log = (l: string) => void logs.push(l);
  const done = serveStdio(SOURCE, { stdin, stdout, handleSignals: false, log });
  stdin.write(lines.map((l) => l + "\n").join(""));
  const parsed = () => out.split("\n").filter((l) => l !== "").map((l) => JSON.parse(l));
  assert.ok(await waitFor(() => parsed().length >= count), out);
  stdin.end();
  await done;
  return parsed();
}

Deno.test("a request the schema refuses is answered -32600 with its id, not dropped", async () => {
  const got = await answers([
    INIT,
    '{"jsonrpc":"2.0","id":2,"method":"ping","extra":1}',
    '{"id":"three","method":"ping"}',
    '{"jsonrpc":"2.0","id":4,"method":"tools/list","params":[1]}',
    "not json",
    '{"jsonrpc":"2.0","method":"notifications/x","extra":1}',
    '{"jsonrpc":"2.0","id":5,"method":"ping"}',
  ], 5);
  const byId = new Map(got.map((a) => [a.id, a]));
  for (const id of [2, "three", 4]) assert.equal(byId.get(id)?.error?.code, INVALID_REQUEST);
  assert.deepEqual(byId.get(5)?.result, {});
  assert.equal(got.length, 5, JSON.stringify(got)); // nothing for the lines without an id
});

Deno.test("the first line dropped unanswered is logged once, without its content", async () => {
  const logs: string[] = [];
  const got = await answers(
    [
      "Content-Length: 52",
      "",
      INIT,
      "secret-ish junk",
      '{"jsonrpc":"2.0","id":2,"method":"ping"}',
    ],
    2,
    logs,
  );
  assert.equal(got.length, 2);
  assert.deepEqual(logs.filter((l) => l === DROPPED_LINE), [DROPPED_LINE]);
  assert.ok(!logs.some((l) => l.includes("junk") || l.includes("52")), logs.join("\n"));
  const quiet: string[] = [];
  await answers([INIT, "", '{"jsonrpc":"2.0","method":"notifications/initialized"}'], 1, quiet);
  assert.ok(!quiet.includes(DROPPED_LINE), quiet.join("\n"));
});

Deno.test("a JSON-RPC batch is taken message by message, the first one included", async () => {
  const got = await answers([
    `[${INIT},{"jsonrpc":"2.0","method":"notifications/initialized"}]`,
    '[{"jsonrpc":"2.0","id":2,"method":"ping"},{"jsonrpc":"2.0","id":3,"method":"tools/call",' +
    '"params":{"name":"info","arguments":{}}},{"id":4,"method":"ping"},[{"id":5}]]',
    '{"jsonrpc":"2.0","id":6,"method":"ping"}',
  ], 5);
  const byId = new Map(got.map((a) => [a.id, a]));
  assert.ok(byId.get(1)?.result, JSON.stringify(got));
  assert.deepEqual(byId.get(2)?.result, {});
  assert.deepEqual((byId.get(3)?.result as { content: unknown }).content, [
    { type: "text", text: "hi" },
  ]);
  assert.equal(byId.get(4)?.error?.code, INVALID_REQUEST);
  assert.deepEqual(byId.get(6)?.result, {});
  assert.equal(got.length, 5); // a batch inside a batch is not unpacked
});

Deno.test("strayLine: answers only what has an id; unpacks one level of batch", () => {
  assert.deepEqual(strayLine("not json"), { kind: "drop" });
  assert.deepEqual(strayLine("[]"), { kind: "drop" });
  assert.deepEqual(strayLine('{"jsonrpc":"2.0","id":1,"result":{},"x":1}'), { kind: "drop" });
  assert.deepEqual(strayLine('{"jsonrpc":"2.0","id":null,"method":"ping"}'), { kind: "drop" });
  assert.deepEqual(strayLine('[1,{"a":2}]'), { kind: "batch", lines: ["1", '{"a":2}'] });
  assert.deepEqual(strayLine("[[1]]", true), { kind: "drop" });
  const a = strayLine('{"jsonrpc":"2.0","id":1.5,"method":"ping"}');
  assert.equal(a.kind === "answer" && (a.message as { id: unknown }).id, 1.5);
});
