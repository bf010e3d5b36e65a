/**
 * The generated benchmark tree shared by the built-ins and native-tool benchmarks:
 * deterministic (seeded), mixed text and binary files, hidden files and nested folders,
 * a few large files, under 10,000 entries in all.
 *
 * @module
 */

import fs from "node:fs";
import path from "node:path";

const MIB = 1024 * 1024;

/** A small deterministic PRNG (mulberry32). */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export const WORDS = ("const let function return if else for while import export from class " +
  "interface type value result error config buffer stream parse render handle request " +
  "response state index count total limit offset token source target module package").split(" ");

export function textBlob(rand: () => number, bytes: number, needle: boolean): string {
  const lines: string[] = [];
  let size = 0;
  const needleAt = needle ? Math.floor(rand() * Math.max(1, bytes / 60)) : -1;
  while (size < bytes) {
    const parts: string[] = [];
    for (let i = 3 + Math.floor(rand() * 10); i > 0; i--) {
      parts.push(WORDS[Math.floor(rand() * WORDS.length)]);
    }
    if (lines.length === needleAt) parts.push("fn needle_token_42()");
    const line = "  ".repeat(Math.floor(rand() * 4)) + parts.join(" ") + ";";
    lines.push(line);
    size += line.length + 1;
  }
  return lines.join("\n") + "\n";
}

/** Tree facts. */
export interface TreeInfo {
  files: number;
  dirs: number;
  bytes: number;
  binary: number;
  hidden: number;
}

/** Generate 9,000 files / ~60 MiB with under 10,000 entries in all (the traversal bound). */
export function generateTree(root: string, files = 9_000, total = 60 * MIB): TreeInfo {
  const rand = rng(42);
  const info: TreeInfo = { files: 0, dirs: 0, bytes: 0, binary: 0, hidden: 0 };
  const dirs = new Set<string>();
  const largeBytes = Math.floor(total / 6 / 4);
  const avg = Math.floor((total - 4 * largeBytes) / (files - 4));
  for (let i = 0; i < files; i++) {
    const top = i % 20 === 0 ? `.hidden${i % 3}` : `pkg${i % 30}`;
    const rel = rand() < 0.5 ? top : `${top}/sub${Math.floor(rand() * 5)}`;
    const dir = path.join(root, rel);
    if (!dirs.has(rel)) fs.mkdirSync(dir, { recursive: true });
    dirs.add(rel).add(top);
    const binary = i % 20 === 7;
    const bytes = i < 4 ? largeBytes : Math.max(64, Math.floor(avg * (0.2 + rand() * 1.6)));
    const file = path.join(dir, `${i % 25 === 0 ? "." : ""}f${i}.${binary ? "bin" : "ts"}`);
    if (binary) {
      const b = new Uint8Array(bytes).map(() => Math.floor(rand() * 256));
      b[bytes >> 1] = 0;
      fs.writeFileSync(file, b);
      info.binary++;
    } else {
      fs.writeFileSync(file, textBlob(rand, bytes, i % 97 === 0));
    }
    if (i % 25 === 0 || top.startsWith(".")) info.hidden++;
    info.files++;
    info.bytes += fs.statSync(file).size;
  }
  info.dirs = dirs.size;
  return info;
}
