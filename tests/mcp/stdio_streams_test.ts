/**
 * `toolhost serve` on every kind of stdio a client may hand it: a FIFO (Deno, shells), a
 * socketpair (Node's child_process), a character device and a regular file. The pipe and
 * socket kinds are opened as sockets of their own (lib/mcp/stdio_streams.ts); output
 * still queued when the client closes stdin must be flushed whole before exit.
 */

import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { CLI, REPO, waitFor } from "./_helpers.ts";

const TOML = `[artifacts.app]
path = "app"

[artifacts.app.evals.e]
audience = "agent"

[artifacts.app.views.agent_tools.read]
builtin = "read"
`;

function workspace(): string {
  const dir = Deno.makeTempDirSync({ prefix: "toolhost_stdio_" });
  Deno.mkdirSync(`${dir}/app`);
  Deno.writeTextFileSync(`${dir}/toolhost.toml`, TOML);
  // Escape-heavy lines: a 64 KiB page is ~400 KiB of JSON and, with its mirror in
  // structuredContent, a response line of about 850 KiB, far beyond any pipe's buffer.
  Deno.writeTextFileSync(`${dir}/app/big.txt`, `${"\x01".repeat(63)}\n`.repeat(2000));
  return dir;
}

const DENO = Deno.execPath();
const serve = (dir: string) => [
  "run",
  "-A",
  "--config",
  `${REPO}/deno.json`,
  CLI,
  "serve",
  "--eval",
  "app/e",
  "--repo",
  dir,
  "--state-dir",
  `${dir}/.state`,
];

const INIT = [
  {
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: {
      protocolVersion: "2025-06-18",
      capabilities: {},
      clientInfo: { name: "t", version: "1" },
    },
  },
  { jsonrpc: "2.0", method: "notifications/initialized" },
];
const READ_BIG = {
  jsonrpc: "2.0",
  id: 2,
  method: "tools/call",
  params: { name: "read_app", arguments: { path: "big.txt", limit: 5000 } },
};
const lines = (msgs: unknown[]) => msgs.map((m) => JSON.stringify(m) + "\n").join("");

/** Parse every complete line of `out`; assert the big read came back whole. */
function assertBigRead(out: string): void {
  const msgs = out.split("\n").filter((l) => l !== "").map((l) => JSON.parse(l));
  const res = msgs.find((m) => m.id === 2);
  assert.ok(res, "the tools/call response is missing");
  assert.equal(res.result.isError, false);
  const data = JSON.parse(res.result.content[0].text);
  assert.equal(data.lines.length, 1024);
  assert.equal(data.totalLines, 2000);
  assert.deepEqual(res.result.structuredContent, data);
}

Deno.test("stdio on FIFOs: an 850 KiB response survives the client closing stdin and reading late", async () => {
  const dir = workspace();
  try {
    const child = new Deno.Command(DENO, {
      args: serve(dir),
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    let stderr = "";
    const stderrDone = (async () => {
      for await (const t of child.stderr.pipeThrough(new TextDecoderStream())) stderr += t;
    })();
    const w = child.stdin.getWriter();
    await w.write(new TextEncoder().encode(lines([...INIT, READ_BIG])));
    // Close stdin as soon as the response starts arriving: the rest is still queued.
    const reader = child.stdout.getReader();
    const chunks: Uint8Array[] = [];
    let closed = false;
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      chunks.push(value);
      if (!closed && Buffer.concat(chunks).includes('"id":2')) {
        closed = true;
        await w.close();
        // Stop reading until the server has ended the connection and cleaned up with
        // output still queued: what it wrote must still reach us whole.
        assert.ok(
          await waitFor(() => /cleanup confirmed/.test(stderr), 120_000),
          `the server never ended the connection:\n${stderr}`,
        );
      }
    }
    const status = await child.status;
    await stderrDone;
    assert.equal(status.code, 0, stderr);
    assertBigRead(Buffer.concat(chunks).toString("utf8"));
    assert.match(stderr, /cleanup confirmed/);
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("stdio on a socketpair (a Node.js client's pipes) serves and exits cleanly", async () => {
  const dir = workspace();
  try {
    // Node's child_process gives the child socketpairs; drive the server from node.
    const driver = `
      const { spawn } = require("node:child_process");
      const [deno, ...args] = JSON.parse(process.argv[1]);
      const p = spawn(deno, args, { stdio: ["pipe", "pipe", "inherit"] });
      let out = "";
      p.stdout.setEncoding("utf8");
      p.stdout.on("data", (d) => {
        out += d;
        if (out.includes('"id":2') && out.endsWith("\\n")) p.stdin.end();
      });
      p.stdin.write(process.argv[2]);
      p.on("exit", (code) => { process.stdout.write(JSON.stringify({ code, out })); });
    `;
    const node = new Deno.Command("node", {
      args: ["-e", driver, JSON.stringify([DENO, ...serve(dir)]), lines([...INIT, READ_BIG])],
      stdout: "piped",
      stderr: "piped",
    });
    const r = await node.output();
    const stderr = new TextDecoder().decode(r.stderr);
    assert.equal(r.code, 0, stderr);
    const { code, out } = JSON.parse(new TextDecoder().decode(r.stdout));
    assert.equal(code, 0, stderr);
    assertBigRead(out);
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("stdio on /dev/null and on a regular file: no hang, exit 0", async () => {
  const dir = workspace();
  try {
    const req = `${dir}/requests.jsonl`;
    Deno.writeTextFileSync(req, lines(INIT));
    for (const stdin of ["/dev/null", req]) {
      const r = await new Deno.Command("sh", {
        args: ["-c", `exec "$0" "$@" < '${stdin}'`, DENO, ...serve(dir)],
        stdout: "piped",
        stderr: "piped",
        signal: AbortSignal.timeout(60_000),
      }).output();
      const stderr = new TextDecoder().decode(r.stderr);
      assert.equal(r.code, 0, `${stdin}: ${stderr}`);
      assert.match(stderr, /connection ended \(stdin closed\)/);
      assert.match(stderr, /cleanup confirmed/);
      for (const l of new TextDecoder().decode(r.stdout).split("\n")) {
        if (l !== "") assert.equal(JSON.parse(l).jsonrpc, "2.0"); // only protocol on stdout
      }
    }
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});
