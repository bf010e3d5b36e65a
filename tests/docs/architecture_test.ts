/**
 * ARCHITECTURE.md's rules hold in the code: the codemap's "must not import" column (read
 * from the document itself, so the map and the code cannot drift apart), and no `Deno`
 * global in lib/, plugins/ or harness-kit/.
 *
 * @module
 */

import assert from "node:assert/strict";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, normalize, relative } from "node:path";
import { ROOT } from "./_readme.ts";

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...sourceFiles(p));
    else if (/\.(ts|mjs|js)$/.test(name)) out.push(p);
  }
  return out;
}

/** The lib/ folder (`errors`, ...) or top-level lib file of a repository-relative path. */
function libUnit(rel: string): string | undefined {
  const parts = rel.split("/");
  if (parts[0] !== "lib") return undefined;
  return parts.length > 2 ? parts[1] : parts[1];
}

/** lib folder → the lib folders (or files) its files import, with one importing file each. */
function libImports(): Map<string, Map<string, string>> {
  const graph = new Map<string, Map<string, string>>();
  const spec =
    /(?:^|\n)\s*(?:import|export)\b[^;]*?\bfrom\s*["'](\.[^"']+)["']|import\(\s*["'](\.[^"']+)["']\s*\)/g;
  for (const file of sourceFiles(join(ROOT, "lib"))) {
    const rel = relative(ROOT, file);
    const from = libUnit(rel)!;
    for (const m of readFileSync(file, "utf8").matchAll(spec)) {
      const target = normalize(join(dirname(rel), m[1] ?? m[2]));
      const to = libUnit(target);
      if (to === undefined || to === from) continue;
      if (!graph.has(from)) graph.set(from, new Map());
      graph.get(from)!.set(to, rel);
    }
  }
  return graph;
}

interface Rule {
  folders: string[];
  forbidden: string[] | "all" | { allBut: string[] };
}

/** The codemap table's rows. */
function codemapRules(): Rule[] {
  const text = readFileSync(join(ROOT, "ARCHITECTURE.md"), "utf8");
  const section = text.slice(text.indexOf("## Codemap"), text.indexOf("## Invariants"));
  const rules: Rule[] = [];
  for (const line of section.split("\n")) {
    const cells = line.split("|").map((c) => c.trim());
    if (cells.length < 5 || !cells[1].startsWith("`lib/")) continue;
    const folders = [...cells[1].matchAll(/`lib\/([a-z_]+)\/`/g)].map((m) => m[1]);
    const rule = cells[3];
    let forbidden: Rule["forbidden"];
    if (rule === "—") forbidden = [];
    else if (rule === "anything else in `lib/`") forbidden = "all";
    else if (rule.startsWith("anything else in `lib/` but")) {
      forbidden = { allBut: [...rule.matchAll(/`([a-z_]+)`/g)].map((m) => m[1]) };
    } else forbidden = rule.split(",").map((s) => s.trim());
    rules.push({ folders, forbidden });
  }
  return rules;
}

Deno.test("ARCHITECTURE.md: the codemap names every lib/ folder", () => {
  const rules = codemapRules();
  const mapped = new Set(rules.flatMap((r) => r.folders));
  const folders = readdirSync(join(ROOT, "lib")).filter((n) =>
    statSync(join(ROOT, "lib", n)).isDirectory()
  );
  assert.deepEqual(folders.filter((f) => !mapped.has(f)), [], "lib/ folders missing a codemap row");
  for (const r of rules) {
    if (Array.isArray(r.forbidden)) {
      for (const f of r.forbidden) assert.ok(folders.includes(f), `codemap names lib/${f}/`);
    }
  }
});

Deno.test("ARCHITECTURE.md: no lib/ folder imports what the codemap forbids", () => {
  const graph = libImports();
  assert.ok((graph.get("registry")?.size ?? 0) > 0, "the import scan found nothing");
  const broken: string[] = [];
  for (const rule of codemapRules()) {
    for (const folder of rule.folders) {
      for (const [to, file] of graph.get(folder) ?? []) {
        const f = rule.forbidden;
        const bad = f === "all" ||
          (Array.isArray(f) ? f.includes(to) : !f.allBut.includes(to));
        if (bad) broken.push(`${file} imports lib/${to} (lib/${folder}/ must not)`);
      }
    }
  }
  assert.deepEqual(broken, []);
});

Deno.test("ARCHITECTURE.md: no Deno global in lib/, plugins/, harness-kit/", () => {
  const uses: string[] = [];
  for (const dir of ["lib", "plugins", "harness-kit"]) {
    for (const file of sourceFiles(join(ROOT, dir))) {
      const lines = readFileSync(file, "utf8").split("\n");
      lines.forEach((line, i) => {
        const code = line.replace(/\/\/.*$/, "");
        if (/^\s*\*/.test(code)) return; // JSDoc
        if (/(?<![\w."'`])Deno\s*[.[]|globalThis\s*\.\s*Deno\b/.test(code)) {
          uses.push(`${relative(ROOT, file)}:${i + 1}`);
        }
      });
    }
  }
  assert.deepEqual(uses, []);
});
