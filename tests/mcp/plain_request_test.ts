/**
 * The hand-checked request path (lib/mcp/plain_request.ts) is differential-tested against
 * the SDK's zod parses: for every line of a corpus — plain requests, odd keys, `__proto__`
 * keys, odd ids, notifications, responses, invalid JSON-RPC — `parseMessageLine` must give
 * what `deserializeMessage` gives (same JSON text, key order included, and deep-equal with
 * prototypes) or throw what it throws, and `plainCallRequest` must give what
 * `CallToolRequestSchema.parse` gives whenever it answers.
 */

import assert from "node:assert/strict";
// @ts-types="@modelcontextprotocol/sdk/shared/stdio"
import { deserializeMessage } from "@modelcontextprotocol/sdk/shared/stdio.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import { CallToolRequestSchema, isJSONRPCRequest } from "@modelcontextprotocol/sdk/types.js";
import { isPlainRequest, parseMessageLine, plainCallRequest } from "../../lib/mcp/plain_request.ts";

const CALL = '"method":"tools/call","jsonrpc":"2.0"';

const LINES = [
  '{"jsonrpc":"2.0","id":1,"method":"ping"}',
  '{"method":"ping","id":"a-1","jsonrpc":"2.0"}',
  '{"jsonrpc":"2.0","id":0,"method":"tools/list","params":{}}',
  '{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"cursor":"c"}}',
  `{${CALL},"id":3,"params":{"name":"read_app","arguments":{"path":"f.txt"}}}`,
  `{"params":{"arguments":{"b":1,"a":{"c":[1,{"d":null}]},"2":0,"1":true},"name":"t"},${CALL},"id":4}`,
  `{${CALL},"id":5,"params":{"name":"t"}}`,
  `{${CALL},"id":6,"params":{"name":"t","arguments":{}}}`,
  `{${CALL},"id":7,"params":{"name":"t","arguments":{"__proto__":{"p":1},"a":1}}}`,
  `{${CALL},"id":8,"params":{"name":"t","arguments":{"a":{"__proto__":{"p":1}}}}}`,
  `{${CALL},"id":9,"params":{"__proto__":{"p":1},"name":"t"}}`,
  `{${CALL},"id":10,"params":{"name":"t","extra":1,"arguments":{"x":"y"}}}`,
  `{${CALL},"id":11,"params":{"name":"t","_meta":{"progressToken":"p"}}}`,
  `{${CALL},"id":12,"params":{"name":"t","task":{"ttl":5}}}`,
  `{${CALL},"id":13,"params":{"name":"t","arguments":[1,2]}}`,
  `{${CALL},"id":14,"params":{"name":"t","arguments":null}}`,
  `{${CALL},"id":15,"params":{"name":5}}`,
  `{${CALL},"id":16,"params":{"arguments":{}}}`,
  `{${CALL},"id":17}`,
  `{${CALL},"id":18,"params":null}`,
  `{${CALL},"id":19,"params":[]}`,
  `{${CALL},"id":20,"params":{"name":"t","arguments":"x"}}`,
  `{${CALL},"id":21,"params":{"name":"t","constructor":{"a":1},"toString":1}}`,
  `{${CALL},"id":22,"params":{"name":"t","arguments":{"constructor":1,"hasOwnProperty":2}}}`,
  '{"jsonrpc":"2.0","id":9007199254740991,"method":"ping"}',
  '{"jsonrpc":"2.0","id":9007199254740993,"method":"ping"}',
  '{"jsonrpc":"2.0","id":-3,"method":"ping"}',
  '{"jsonrpc":"2.0","id":1.5,"method":"ping"}',
  '{"jsonrpc":"2.0","id":1e3,"method":"ping"}',
  '{"jsonrpc":"2.0","id":null,"method":"ping"}',
  '{"jsonrpc":"2.0","id":true,"method":"ping"}',
  '{"jsonrpc":"2.0","id":{},"method":"ping"}',
  '{"jsonrpc":"2.0","id":1,"method":5}',
  '{"jsonrpc":"1.0","id":1,"method":"ping"}',
  '{"id":1,"method":"ping"}',
  '{"jsonrpc":"2.0","id":1,"method":"ping","extra":1}',
  '{"jsonrpc":"2.0","id":1,"method":"ping","__proto__":{"a":1}}',
  '{"jsonrpc":"2.0","id":1,"method":"ping","params":{"_meta":{}}}',
  '{"jsonrpc":"2.0","method":"notifications/initialized"}',
  '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}',
  '{"jsonrpc":"2.0","id":1,"result":{}}',
  '{"jsonrpc":"2.0","id":1,"error":{"code":-1,"message":"m"}}',
  '{"jsonrpc":"2.0","id":1,"method":"ping","result":{}}',
  '{"jsonrpc":"2.0"}',
  "[]",
  "null",
  '"x"',
  "7",
  "{",
  "",
];

function outcome(f: () => unknown): { ok: true; value: unknown } | { ok: false; error: string } {
  try {
    return { ok: true, value: f() };
  } catch (e) {
    return { ok: false, error: `${(e as Error).name}: ${(e as Error).message}` };
  }
}

Deno.test("parseMessageLine gives what the SDK's deserializeMessage gives, or its error", () => {
  let fast = 0;
  for (const line of LINES) {
    const sdk = outcome(() => deserializeMessage(line));
    const ours = outcome(() => parseMessageLine(line));
    assert.equal(ours.ok, sdk.ok, line);
    if (!ours.ok || !sdk.ok) {
      assert.equal(ours.ok ? "" : ours.error, sdk.ok ? "" : sdk.error, line);
      continue;
    }
    assert.equal(JSON.stringify(ours.value), JSON.stringify(sdk.value), line);
    assert.deepStrictEqual(ours.value, sdk.value, line);
    const plain = isPlainRequest(ours.value as object);
    if (plain) {
      fast++;
      assert.ok(isJSONRPCRequest(ours.value), `a fast-path message is a request: ${line}`);
    }
  }
  assert.ok(fast >= 15, `the fast path took ${fast} lines`);
});

Deno.test("plainCallRequest gives what CallToolRequestSchema.parse gives, when it answers", () => {
  let answered = 0;
  for (const line of LINES) {
    const parsed = outcome(() => deserializeMessage(line));
    if (!parsed.ok) continue;
    const mine = plainCallRequest(parsed.value);
    const sdk = outcome(() => CallToolRequestSchema.parse(parsed.value));
    if (mine === undefined) continue;
    answered++;
    assert.ok(sdk.ok, `zod accepts what the fast path accepted: ${line}`);
    assert.equal(JSON.stringify(mine), JSON.stringify(sdk.value), line);
    assert.deepStrictEqual(mine, sdk.value, line);
    // And on the message the fast parse made, the same.
    assert.deepStrictEqual(plainCallRequest(parseMessageLine(line)), sdk.value, line);
  }
  assert.ok(answered >= 6, `the fast path answered ${answered} requests`);
  assert.equal(plainCallRequest({ method: "ping", params: { name: "t" } }), undefined);
  assert.equal(plainCallRequest(null), undefined);
});

Deno.test("isPlainRequest knows the latest fast-path message only, never a look-alike", () => {
  const a = parseMessageLine('{"jsonrpc":"2.0","id":1,"method":"ping"}');
  assert.equal(isPlainRequest(a), true);
  const b = parseMessageLine('{"jsonrpc":"2.0","id":2,"method":"ping"}');
  assert.equal(isPlainRequest(b), true);
  assert.equal(isPlainRequest(a), false, "an older message takes the SDK's own check");
  assert.equal(isPlainRequest({ ...b }), false, "a copy was never checked");
  // A line the fast path leaves to the SDK is not taken for the latest plain one.
  const n = parseMessageLine('{"jsonrpc":"2.0","method":"notifications/initialized"}');
  assert.equal(isPlainRequest(n), false);
  assert.equal(isPlainRequest(b), true);
});
