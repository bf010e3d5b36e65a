/**
 * Build the npm package in dist/npm from the same source (replaces dnt, which is JSR-only):
 * TypeScript's compiler (npm `typescript`) emits ESM + `.d.ts` with `.ts` import
 * specifiers rewritten to `.js`; package.json takes its name, version and dependencies from
 * deno.json; a Node smoke test (`node --test`) then imports the built package and runs its
 * bin. Run with `deno task build:npm` (`--no-test` skips the Node test).
 *
 * @module
 */

import ts from "typescript";
import { execFileSync } from "node:child_process";
import { chmodSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { copyPackagedDocs } from "./npm_docs.ts";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const OUT = join(ROOT, "dist", "npm");
// harness-kit/testing.ts is loaded by a computed specifier (harness-kit/mod.ts), so it is
// named here to be emitted.
const ENTRY_POINTS = [
  "mod.ts",
  "harness-kit/mod.ts",
  "harness-kit/testing.ts",
  "lib/cli/main.ts",
  "lib/process/inherited_fds.ts", // imported by the bin only
];
const NODE_TYPES = "20.19.43";

/** What the npm build reads from deno.json. */
export interface DenoJson {
  version: string;
  imports: Record<string, string>;
}

/** Map deno.json's `npm:` import map onto package.json dependencies (build-only ones skipped). */
function dependenciesOf(deno: DenoJson): Record<string, string> {
  const buildOnly = new Set(["typescript", "hash-wasm", "postject", "yaml", "kubernetes-models"]);
  const deps: Record<string, string> = {};
  for (const spec of Object.values(deno.imports)) {
    const m = /^npm:\/?((?:@[^/@]+\/)?[^/@]+)@([^/]+)/.exec(spec);
    if (m && !buildOnly.has(m[1])) deps[m[1]] = m[2];
  }
  return deps;
}

/**
 * The package.json of the npm build for `deno` (deno.json's version and import map).
 *
 * @example
 * ```ts
 * import { packageJson } from "./build_npm.ts";
 * packageJson({ version: "1.0.0", imports: {} }).files; // ["esm/", "bin/", "README.md", "docs/"]
 * ```
 */
export function packageJson(deno: DenoJson): Record<string, unknown> & { files: string[] } {
  return {
    name: "toolhost",
    version: deno.version,
    description:
      "Declare agent tools in a workspace manifest; validate, list, run, supervise and serve them.",
    license: "MIT",
    type: "module",
    engines: { node: ">=20" },
    main: "./esm/mod.js",
    types: "./esm/mod.d.ts",
    exports: {
      ".": { types: "./esm/mod.d.ts", import: "./esm/mod.js" },
      "./harness-kit": { types: "./esm/harness-kit/mod.d.ts", import: "./esm/harness-kit/mod.js" },
      "./package.json": "./package.json",
    },
    bin: { toolhost: "./bin/toolhost.js" },
    files: ["esm/", "bin/", "README.md", "docs/"],
    dependencies: dependenciesOf(deno),
    devDependencies: { "@types/node": NODE_TYPES },
  };
}

function writePackageJson(deno: DenoJson): void {
  writeFileSync(join(OUT, "package.json"), `${JSON.stringify(packageJson(deno), null, 2)}\n`);
}

/**
 * A compiler host that resolves bare (package) specifiers as if they were imported from
 * inside dist/npm, so dist/npm/node_modules serves them with their `exports` maps (the
 * sources live outside that folder); relative specifiers resolve as usual.
 */
function compilerHost(options: ts.CompilerOptions): ts.CompilerHost {
  const host = ts.createCompilerHost(options);
  const fromPackage = join(OUT, "resolve_from_here.ts");
  host.resolveModuleNameLiterals = (literals, containingFile, _ref, opts) =>
    literals.map((lit) => {
      const name = lit.text;
      const own = name.startsWith(".") || name.startsWith("/") ||
        containingFile.includes("/node_modules/");
      const from = own ? containingFile : fromPackage;
      return ts.resolveModuleName(name, from, opts, host);
    });
  return host;
}

function compile(): void {
  const nm = join(OUT, "node_modules");
  const options: ts.CompilerOptions = {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    rewriteRelativeImportExtensions: true,
    allowImportingTsExtensions: true,
    declaration: true,
    strict: true,
    skipLibCheck: true,
    esModuleInterop: true,
    lib: ["lib.es2022.d.ts", "lib.dom.d.ts"],
    types: ["node"],
    typeRoots: [join(nm, "@types")],
    rootDir: ROOT,
    outDir: join(OUT, "esm"),
    ignoreDeprecations: "6.0",
  };
  const program = ts.createProgram({
    rootNames: ENTRY_POINTS.map((e) => join(ROOT, e)),
    options,
    host: compilerHost(options),
  });
  const emit = program.emit();
  const diags = [...ts.getPreEmitDiagnostics(program), ...emit.diagnostics];
  if (diags.length > 0) {
    const host: ts.FormatDiagnosticsHost = {
      getCanonicalFileName: (f) => f,
      getCurrentDirectory: () => ROOT,
      getNewLine: () => "\n",
    };
    console.error(ts.formatDiagnostics(diags.slice(0, 30), host));
    throw new Error(`TypeScript reported ${diags.length} problem(s) in the npm build`);
  }
}

function writeBin(): void {
  mkdirSync(join(OUT, "bin"), { recursive: true });
  const bin = join(OUT, "bin", "toolhost.js");
  writeFileSync(
    bin,
    `#!/usr/bin/env node\nimport { runCli } from "../esm/lib/cli/main.js";\n` +
      `import { closeInheritedFds } from "../esm/lib/process/inherited_fds.js";\n` +
      // Before anything is spawned: descriptors the parent leaked must not reach any tool.
      `closeInheritedFds();\n` +
      `process.exitCode = await runCli(process.argv.slice(2));\n`,
  );
  chmodSync(bin, 0o755);
}

function main(): void {
  const deno = JSON.parse(readFileSync(join(ROOT, "deno.json"), "utf8")) as DenoJson;
  rmSync(OUT, { recursive: true, force: true });
  mkdirSync(OUT, { recursive: true });
  writePackageJson(deno);
  execFileSync("npm", [
    "install",
    "--ignore-scripts",
    "--no-audit",
    "--no-fund",
    "--loglevel=error",
  ], {
    cwd: OUT,
    stdio: ["ignore", "inherit", "inherit"],
  });
  compile();
  writeBin();
  copyPackagedDocs(ROOT, OUT); // README.md and docs/, no link left dead
  console.log(`npm package written to ${OUT}`);
  if (!process.argv.includes("--no-test")) {
    execFileSync("node", ["--test", join(ROOT, "scripts", "npm_smoke.mjs")], {
      cwd: ROOT,
      stdio: "inherit",
      env: { ...process.env, TOOLHOST_NPM_DIR: OUT },
    });
  }
}

if (import.meta.main) main();
