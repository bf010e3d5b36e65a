/**
 * A minimal MCP client of a real `toolhost serve` over stdio (the CLI, as an MCP client
 * starts it), for the stress tests of several serves on one workspace, and the checks they
 * share: waiting for a condition, and the processes still running in a workspace.
 *
 * @module
 */

import { readdirSync, readlinkSync } from "node:fs";
import { REPO_ROOT } from "../helpers/cli.ts";

/** One `toolhost serve` over stdio and a minimal MCP client of it. */
export class Serve {
  readonly child: Deno.ChildProcess;
  readonly #writer: WritableStreamDefaultWriter<Uint8Array>;
  readonly #waiting = new Map<number, (msg: Record<string, unknown>) => void>();
  readonly reading: Promise<void>;
  stderr = "";
  #id = 0;

  constructor(root: string, extra: string[] = []) {
    this.child = new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "-A",
        "--quiet",
        `${REPO_ROOT}/cli.ts`,
        "serve",
        "--eval",
        "app/review",
        ...extra,
      ],
      cwd: root,
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    this.#writer = this.child.stdin.getWriter();
    this.reading = Promise.all([this.#readOut(), this.#readErr()]).then(() => {});
  }

  get pid(): number {
    return this.child.pid;
  }

  async #readOut(): Promise<void> {
    let buf = "";
    for await (const chunk of this.child.stdout.pipeThrough(new TextDecoderStream())) {
      buf += chunk;
      for (let i = buf.indexOf("\n"); i >= 0; i = buf.indexOf("\n")) {
        const msg = JSON.parse(buf.slice(0, i));
        buf = buf.slice(i + 1);
        this.#waiting.get(msg.id)?.(msg);
        this.#waiting.delete(msg.id);
      }
    }
  }

  async #readErr(): Promise<void> {
    for await (const chunk of this.child.stderr.pipeThrough(new TextDecoderStream())) {
      this.stderr += chunk;
    }
  }

  async #send(msg: Record<string, unknown>): Promise<void> {
    await this.#writer.write(new TextEncoder().encode(`${JSON.stringify(msg)}\n`));
  }

  request(method: string, params: Record<string, unknown>): Promise<Record<string, unknown>> {
    const id = ++this.#id;
    const answer = new Promise<Record<string, unknown>>((r) => this.#waiting.set(id, r));
    this.#send({ jsonrpc: "2.0", id, method, params }).catch(() => {}); // a killed serve
    return answer;
  }

  async init(): Promise<void> {
    await this.request("initialize", {
      protocolVersion: "2025-06-18",
      capabilities: {},
      clientInfo: { name: "stress", version: "1" },
    });
    await this.#send({ jsonrpc: "2.0", method: "notifications/initialized" });
  }

  /** A tool call's text, or `error: ...`. */
  async call(name: string, value: string): Promise<string> {
    const msg = await this.request("tools/call", { name, arguments: { value } });
    const result = msg.result as { content?: { text?: string }[]; isError?: boolean } | undefined;
    const text = result?.content?.map((c) => c.text ?? "").join("") ?? JSON.stringify(msg);
    return result?.isError === false ? text.trim() : `error: ${text}`;
  }

  async close(): Promise<Deno.CommandStatus> {
    await this.#writer.close().catch(() => {});
    const status = await this.child.status;
    await this.reading;
    return status;
  }

  async kill(): Promise<void> {
    try {
      this.child.kill("SIGKILL");
    } catch {
      // already exited
    }
    await this.child.status;
    await this.#writer.close().catch(() => {});
    await this.reading.catch(() => {});
  }
}

export async function waitFor(pred: () => boolean, what: string, ms = 120_000): Promise<void> {
  const end = Date.now() + ms;
  while (!pred()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Live processes whose working directory is inside `root` (tools, harnesses). */
export function processesIn(root: string): number[] {
  const found: number[] = [];
  for (const name of readdirSync("/proc")) {
    const pid = Number(name);
    if (!Number.isInteger(pid)) continue;
    try {
      const cwd = readlinkSync(`/proc/${pid}/cwd`);
      const state = Deno.readTextFileSync(`/proc/${pid}/stat`).split(") ")[1]?.[0];
      if (cwd.startsWith(`${root}/`) && state !== "Z") found.push(pid);
    } catch {
      // gone meanwhile, or not ours to look at
    }
  }
  return found;
}
