import assert from "node:assert/strict";
import { JsonMirrors, MAX_NOTED } from "../../lib/mcp/json_mirrors.ts";
// @ts-types="@modelcontextprotocol/sdk/types"
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";

function response(id: number | string, text: string, sc: unknown, extra = {}): JSONRPCMessage {
  return {
    jsonrpc: "2.0",
    id,
    result: { content: [{ type: "text", text }], isError: false, structuredContent: sc, ...extra },
  } as JSONRPCMessage;
}

function randomValue(rand: () => number, depth = 0): unknown {
  const k = Math.floor(rand() * (depth > 2 ? 4 : 6));
  if (k === 0) return Math.floor(rand() * 1e6) - 5e5;
  if (k === 1) return rand() < 0.5;
  if (k === 2) return null;
  if (k === 3) {
    const pool = ['"', "\\", "\n", "\u0001", "é", "\u{1f600}", "a", "\u2028", "}"];
    return Array.from({ length: Math.floor(rand() * 8) }, () => pool[Math.floor(rand() * 9)])
      .join("");
  }
  if (k === 4) {
    return Array.from({ length: Math.floor(rand() * 4) }, () => randomValue(rand, depth + 1));
  }
  const o: Record<string, unknown> = {};
  for (let i = Math.floor(rand() * 4); i > 0; i--) o[`k${i}"`] = randomValue(rand, depth + 1);
  return o;
}

Deno.test("a spliced response parses to exactly what plain serialization gives", () => {
  let seed = 5;
  const rand = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
  const m = new JsonMirrors();
  for (let i = 0; i < 2000; i++) {
    const value = { v: randomValue(rand), n: i } as Record<string, unknown>;
    const text = JSON.stringify(value);
    const id = i % 3 === 0 ? `req-${i}"` : i;
    m.note(id, text, value);
    const msg = response(id, text, { ...value }, i % 5 === 0 ? { _meta: { x: 1 } } : {});
    const line = m.serialize(msg);
    assert.ok(line.endsWith("\n") && !line.slice(0, -1).includes("\n"));
    assert.ok(line.startsWith('{"result":'), "the splice was not taken"); // msg starts with jsonrpc
    assert.deepEqual(JSON.parse(line), JSON.parse(JSON.stringify(msg)));
  }
  assert.equal(m.size, 0);
});

Deno.test("anything but the noted text and values is serialized normally", () => {
  const m = new JsonMirrors();
  const value = { secret: "a", n: 1 };
  const text = JSON.stringify(value);
  // The structuredContent was changed after noting: its new values must go out.
  m.note(1, text, value);
  const changed = response(1, text, { secret: "[redacted]", n: 1 });
  assert.deepEqual(JSON.parse(m.serialize(changed)).result.structuredContent, {
    secret: "[redacted]",
    n: 1,
  });
  // The text was changed: the value is serialized, not the noted text.
  m.note(2, text, value);
  const other = response(2, '{"secret":"[redacted]","n":1}', { ...value });
  assert.equal(m.serialize(other), JSON.stringify(other) + "\n");
  // Extra or missing keys, an unnoted id, a request, an error response.
  m.note(3, text, value);
  const more = response(3, text, { ...value, extra: true });
  assert.equal(m.serialize(more), JSON.stringify(more) + "\n");
  const unnoted = response(4, text, { ...value });
  assert.equal(m.serialize(unnoted), JSON.stringify(unnoted) + "\n");
  const req = { jsonrpc: "2.0", id: 5, method: "ping" } as JSONRPCMessage;
  assert.equal(m.serialize(req), JSON.stringify(req) + "\n");
});

Deno.test(`noted results never sent age out beyond ${MAX_NOTED}`, () => {
  const m = new JsonMirrors();
  for (let i = 0; i < MAX_NOTED - 1; i++) m.note(i, "{}", {});
  assert.equal(m.size, MAX_NOTED - 1);
  m.note("x", "{}", {});
  assert.equal(m.size, MAX_NOTED);
  m.note("y", "{}", {});
  assert.equal(m.size, MAX_NOTED); // the oldest went
  m.note("x", "{}", {}); // re-noting an id does not grow the table
  assert.equal(m.size, MAX_NOTED);
});
