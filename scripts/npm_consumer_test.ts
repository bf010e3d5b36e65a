/**
 * `deno task build:npm-consumer`: prove the npm package works as a consumer gets it.
 *
 * 1. Build dist/npm if it is missing (`--rebuild` forces it; `deno task build:npm` is the
 *    full build with its own smoke test).
 * 2. `npm pack --dry-run --json` reports the contents and sizes; `npm pack` writes the
 *    tarball into a fresh temporary project.
 * 3. `npm install` the tarball there, with `typescript` and `@types/node` pinned to the
 *    versions the build uses.
 * 4. `node --test` runs the consumer checks (scripts/npm_consumer_files.ts): the library,
 *    the plugin API, odek, `toolhost/harness-kit`, the `toolhost` bin, `tsc --noEmit` over
 *    a typed consumer, and the package contents. Its `# pass` / `# fail` lines are what
 *    .ci/run counts.
 *
 * Prints `npm pack: N files, X kB packed, Y kB unpacked` (the README figure).
 *
 * @module
 */

import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { CONSUMER_TEST_MJS, CONSUMER_TS } from "./npm_consumer_files.ts";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const PKG = join(ROOT, "dist", "npm");
const TYPESCRIPT = "6.0.3";
const NODE_TYPES = "20.19.43";

/** What `npm pack --dry-run --json` reports for one package. */
export interface PackReport {
  /** Tarball size in bytes. */
  size: number;
  /** Unpacked size in bytes. */
  unpackedSize: number;
  /** Files in the tarball. */
  files: { path: string; size: number }[];
}

/**
 * The dry-run pack report of dist/npm (raw JSON and parsed).
 *
 * @example
 * ```ts
 * import { packReport } from "./npm_consumer_test.ts";
 * const { report } = packReport();
 * console.log(report.size);
 * ```
 */
export function packReport(dir = PKG): { json: string; report: PackReport } {
  const json = execFileSync("npm", ["pack", "--dry-run", "--json", "--loglevel=error"], {
    cwd: dir,
    encoding: "utf8",
  });
  return { json, report: (JSON.parse(json) as PackReport[])[0] };
}

function npm(args: string[], cwd: string): void {
  execFileSync("npm", [...args, "--no-audit", "--no-fund", "--loglevel=error"], {
    cwd,
    stdio: ["ignore", "inherit", "inherit"],
  });
}

function writeProject(dir: string): void {
  writeFileSync(
    join(dir, "package.json"),
    JSON.stringify({ name: "toolhost-consumer", private: true, type: "module" }, null, 2),
  );
  writeFileSync(
    join(dir, "tsconfig.json"),
    JSON.stringify(
      {
        compilerOptions: {
          target: "es2022",
          module: "nodenext",
          moduleResolution: "nodenext",
          strict: true,
          noEmit: true,
          skipLibCheck: false,
          types: ["node"],
        },
        files: ["consumer.ts"],
      },
      null,
      2,
    ),
  );
  writeFileSync(join(dir, "consumer.ts"), CONSUMER_TS);
  writeFileSync(join(dir, "consumer.test.mjs"), CONSUMER_TEST_MJS);
}

function main(): number {
  if (process.argv.includes("--rebuild") || !existsSync(join(PKG, "package.json"))) {
    execFileSync(process.execPath, [
      "run",
      "-A",
      join(ROOT, "scripts", "build_npm.ts"),
      "--no-test",
    ], {
      cwd: ROOT,
      stdio: "inherit",
    });
  }
  const version = JSON.parse(readFileSync(join(PKG, "package.json"), "utf8")).version as string;
  const { json, report } = packReport();
  const kb = (n: number) => `${(n / 1000).toFixed(1)} kB`;
  console.log(
    `npm pack: ${report.files.length} files, ${kb(report.size)} packed, ${
      kb(report.unpackedSize)
    } unpacked`,
  );
  const project = mkdtempSync(join(tmpdir(), "toolhost-consumer-"));
  try {
    execFileSync("npm", ["pack", "--pack-destination", project, "--loglevel=error"], {
      cwd: PKG,
      stdio: ["ignore", "ignore", "inherit"],
    });
    writeProject(project);
    npm([
      "install",
      `./toolhost-${version}.tgz`,
      `typescript@${TYPESCRIPT}`,
      `@types/node@${NODE_TYPES}`,
    ], project);
    execFileSync("node", ["--test", "consumer.test.mjs"], {
      cwd: project,
      stdio: "inherit",
      env: {
        ...process.env,
        TOOLHOST_EXAMPLES: join(ROOT, "examples"),
        TOOLHOST_VERSION: version,
        PACK_JSON: json,
      },
    });
    return 0;
  } catch (e) {
    const status = (e as { status?: number }).status;
    console.error(`npm consumer test failed${status === undefined ? `: ${e}` : ""}`);
    return 1;
  } finally {
    rmSync(project, { recursive: true, force: true });
  }
}

if (import.meta.main) process.exitCode = main();
