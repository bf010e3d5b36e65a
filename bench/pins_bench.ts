/**
 * Pinning throughput: `pinPath` (node:crypto, double-buffered reads) against hash-wasm's
 * streaming SHA-256 over the same chunks and against coreutils `sha256sum`, on one file of
 * 1 GiB (256 MiB with BENCH_QUICK=1), plus a 10,000-file directory pin.
 *
 * Run alone: `deno run -A bench/pins_bench.ts`.
 *
 * @module
 */

import { createHash } from "node:crypto";
import { open } from "node:fs/promises";
import { createSHA256 } from "hash-wasm";
import { installDenoHost } from "../cli.ts";
import { pinPath } from "../lib/pins/mod.ts";
import { reportGoal } from "./goals.ts";

const MIB = 1024 * 1024;
const CHUNK = 4 * MIB;

/** One measured method. */
interface Measure {
  name: string;
  seconds: number;
  digest: string;
}

/**
 * Run the pinning benchmark and return its report lines (MB/s and ratios).
 *
 * @example
 * ```ts
 * import { benchPins } from "./pins_bench.ts";
 * for (const line of await benchPins()) console.log(line);
 * ```
 */
export async function benchPins(): Promise<string[]> {
  installDenoHost(); // as cli.ts does: pins size files with Deno's own stat
  const quick = Deno.env.get("BENCH_QUICK") === "1";
  const size = quick ? 256 * MIB : 1024 * MIB;
  const runs = Number(Deno.env.get("BENCH_RUNS") ?? (quick ? "3" : "2"));
  const dir = await Deno.makeTempDir({ prefix: "toolhost_bench_pins_" });
  try {
    await writeData(`${dir}/data.bin`, size);
    await pinPath(dir, "data.bin", { maxBytes: size }); // warm the page cache and the JIT
    const pin = await best(
      runs,
      "pinPath (node:crypto)",
      () => pinPath(dir, "data.bin", { maxBytes: size }),
    );
    const wasm = await best(runs, "hash-wasm createSHA256", () => hashWasmFile(`${dir}/data.bin`));
    const coreutils = await best(runs, "sha256sum", () => sha256sum(`${dir}/data.bin`));
    const lines = [`file: ${size / MIB} MiB (1 MiB random block repeated), best of ${runs} runs`];
    for (const m of [pin, wasm, coreutils]) lines.push(fmtRate(m, size));
    if (wasm.digest !== pin.digest || coreutils.digest !== pin.digest) {
      throw new Error("digests disagree between pinPath, hash-wasm and sha256sum");
    }
    lines.push(ratioLine("pinPath / hash-wasm", pin, wasm, "pins.hash-wasm"));
    lines.push(ratioLine("pinPath / sha256sum", pin, coreutils));
    lines.push(...await memoryOnly(quick ? 256 * MIB : 512 * MIB));
    lines.push(...await directoryPin(dir, runs));
    return lines;
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

async function writeData(path: string, size: number): Promise<void> {
  const block = new Uint8Array(MIB);
  for (let i = 0; i < MIB; i += 65536) crypto.getRandomValues(block.subarray(i, i + 65536));
  const file = await Deno.open(path, { write: true, create: true, truncate: true });
  try {
    for (let written = 0; written < size; written += MIB) {
      block[0] = written / MIB; // vary the blocks a little
      let off = 0;
      while (off < MIB) off += await file.write(block.subarray(off));
    }
  } finally {
    file.close();
  }
}

async function best(runs: number, name: string, fn: () => Promise<string>): Promise<Measure> {
  let out: Measure | undefined;
  for (let i = 0; i < Math.max(1, runs); i++) {
    const t = performance.now();
    const digest = await fn();
    const seconds = (performance.now() - t) / 1000;
    if (!out || seconds < out.seconds) out = { name, seconds, digest };
  }
  return out!;
}

/** hash-wasm over the same 4 MiB chunks, reads overlapped with hashing like pinPath. */
async function hashWasmFile(path: string): Promise<string> {
  const hasher = await createSHA256();
  hasher.init();
  const fh = await open(path, "r");
  try {
    let cur = new Uint8Array(CHUNK);
    let next = new Uint8Array(CHUNK);
    let pending = fh.read(cur, 0, CHUNK, null);
    for (;;) {
      const { bytesRead } = await pending;
      if (bytesRead === 0) break;
      pending = fh.read(next, 0, CHUNK, null);
      hasher.update(cur.subarray(0, bytesRead));
      [cur, next] = [next, cur];
    }
  } finally {
    await fh.close();
  }
  return hasher.digest("hex");
}

async function sha256sum(path: string): Promise<string> {
  const out = await new Deno.Command("sha256sum", { args: [path], stdout: "piped" }).output();
  if (!out.success) throw new Error("sha256sum failed");
  return new TextDecoder().decode(out.stdout).slice(0, 64);
}

/** Pure hashing of an in-memory buffer, no file I/O: node:crypto vs hash-wasm. */
async function memoryOnly(total: number): Promise<string[]> {
  const buf = new Uint8Array(CHUNK);
  crypto.getRandomValues(buf.subarray(0, 65536));
  const rounds = total / CHUNK;
  const node = await best(2, "node:crypto (memory)", () => {
    const h = createHash("sha256");
    for (let i = 0; i < rounds; i++) h.update(buf);
    return Promise.resolve(h.digest("hex"));
  });
  const hasher = await createSHA256();
  const wasm = await best(2, "hash-wasm (memory)", () => {
    hasher.init();
    for (let i = 0; i < rounds; i++) hasher.update(buf);
    return Promise.resolve(hasher.digest("hex"));
  });
  return [
    `in-memory ${total / MIB} MiB:`,
    fmtRate(node, total),
    fmtRate(wasm, total),
    ratioLine("node:crypto / hash-wasm (memory)", node, wasm),
  ];
}

/** A directory of 10,000 small files: pinPath against find | sort | xargs sha256sum. */
async function directoryPin(dir: string, runs: number): Promise<string[]> {
  const tree = `${dir}/tree`;
  for (let d = 0; d < 100; d++) {
    Deno.mkdirSync(`${tree}/d${d}`, { recursive: true });
    for (let f = 0; f < 100; f++) Deno.writeTextFileSync(`${tree}/d${d}/f${f}`, `${d}:${f}\n`);
  }
  await pinPath(dir, "tree");
  const script = "find . -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum | sha256sum";
  const pipeline = async () => {
    const out = await new Deno.Command("sh", { args: ["-c", script], cwd: tree, stdout: "piped" })
      .output();
    if (!out.success) throw new Error("find pipeline failed");
    return "";
  };
  // Interleaved rounds, median of each: the machine's drift hits both alike.
  const rounds = Math.max(5, runs * 3);
  const times = { pin: [] as number[], shell: [] as number[] };
  // CPU as well as wall time: on a shared machine the wall ratio drifts with the load.
  const cpu = { pin: [] as number[], shell: [] as number[] };
  for (let r = 0; r < rounds; r++) {
    for (const k of r % 2 === 0 ? (["pin", "shell"] as const) : (["shell", "pin"] as const)) {
      const c = cpuMs();
      const t = performance.now();
      await (k === "pin" ? pinPath(dir, "tree") : pipeline());
      times[k].push((performance.now() - t) / 1000);
      const used = cpuMs();
      cpu[k].push(k === "pin" ? used.own - c.own : used.children - c.children);
    }
  }
  const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const pin: Measure = { name: "pinPath dir", seconds: med(times.pin), digest: "" };
  const shell: Measure = {
    name: "find|sort|xargs sha256sum",
    seconds: med(times.shell),
    digest: "",
  };
  const ms = (m: Measure) => (m.seconds * 1000).toFixed(0);
  return [
    `directory of 10,000 small files (100 dirs x 100), median of ${rounds} interleaved rounds:`,
    `  ${pin.name.padEnd(28)} ${ms(pin).padStart(6)} ms`,
    `  ${shell.name.padEnd(28)} ${ms(shell).padStart(6)} ms`,
    `  pinPath dir takes ${(pin.seconds / shell.seconds).toFixed(2)}x the pipeline's time (${
      reportGoal("pins.directory", pin.seconds / shell.seconds)
    })`,
    `  CPU (median): pinPath ${med(cpu.pin).toFixed(0)} ms, pipeline's processes ${
      med(cpu.shell).toFixed(0)
    } ms; load average ${loadAverage()}`,
  ];
}

/**
 * CPU milliseconds of this process (user + system) and of its reaped children (the
 * pipeline's processes), from /proc/self/stat; zeros where there is no procfs.
 */
function cpuMs(): { own: number; children: number } {
  let text: string;
  try {
    text = Deno.readTextFileSync("/proc/self/stat");
  } catch {
    return { own: 0, children: 0 };
  }
  // Fields after the command name: utime, stime, cutime, cstime are fields 14-17.
  const f = text.slice(text.lastIndexOf(")") + 2).split(" ").map(Number);
  return { own: (f[11] + f[12]) * 10, children: (f[13] + f[14]) * 10 };
}

function loadAverage(): string {
  try {
    return Deno.readTextFileSync("/proc/loadavg").split(" ").slice(0, 3).join(" ");
  } catch {
    return "unknown";
  }
}

function fmtRate(m: Measure, bytes: number): string {
  const mbs = bytes / 1e6 / m.seconds;
  return `  ${m.name.padEnd(28)} ${mbs.toFixed(0).padStart(6)} MB/s  (${m.seconds.toFixed(3)} s)`;
}

function ratioLine(label: string, a: Measure, b: Measure, goal?: string): string {
  const ratio = b.seconds / a.seconds;
  const verdict = goal === undefined ? "" : `  ${reportGoal(goal, ratio)}`;
  return `  ratio ${label}: ${ratio.toFixed(2)}x${verdict}`;
}

if (import.meta.main) {
  for (const line of await benchPins()) console.log(line);
}
