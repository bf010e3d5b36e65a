/**
 * `toolhost init json-tool|plain-tool|harness NAME`: scaffold a working tool or tool-session
 * harness — its program, a passing `node --test` file and its toolhost.toml declarations —
 * and print the next steps. Exit 0 created, 1 a file exists or the manifest would become
 * invalid (rolled back), 2 bad kind, NAME or --artifact.
 *
 * @module
 */

import { existsSync, realpathSync } from "node:fs";
import { join, relative } from "node:path";
import process from "node:process";
import { Command } from "commander";
import { formatScaffoldReport } from "../../init/next_steps.ts";
import { scaffold, ScaffoldRolledBack } from "../../init/scaffold.ts";
import { INIT_KINDS } from "../../init/kinds.ts";
import { sandboxSupport } from "../../sandbox/detect.ts";
import { LOCK_FILE_NAME } from "../../lock/lock_file.ts";
import { type CommonOptions, withCommon } from "../common_options.ts";
import { type CliIo, EXIT } from "../exit.ts";

const HELP_AFTER = `
Kinds:
  json-tool    a json-protocol tool in Node.js (NAME.mjs): one request on stdin,
               one result out
  plain-tool   a plain-protocol tool in POSIX sh (NAME.sh): argv in, stdout as
               text
  harness      a tool session (NAME.mjs start|stop) with two bound json tools,
               NAME_set and NAME_get, that share state through the running
               harness

Templates (harness only):
  --template browser
               headless Chromium as the session (NAME.mjs with NAME_browser.mjs,
               NAME_files.mjs and the page NAME.html it serves) and six tools:
               NAME_open_url, NAME_click, NAME_type_text, NAME_snapshot,
               NAME_screenshot (a PNG) and NAME_console_logs; confined, no
               network but its own loopback. Needs Chromium (Debian: apt-get
               install chromium; elsewhere set CHROMIUM to its path)

Each kind gets NAME.test.mjs, a test for \`node --test\` (set TOOLHOST_BIN to
the toolhost executable to also run the tool through toolhost). The programs
need only Node.js (or sh).

Without toolhost.toml in the workspace folder, init creates one with a folder
Artifact (--artifact, default "tools") and the agent eval <artifact>/agent. With
one, the declarations are appended to it (your comments and formatting stay) and
the workspace is validated; if it no longer validates, everything is rolled
back. Existing files are never overwritten. init also adds \`.toolhost/\` (the
state directory) to the workspace's .gitignore, creating it if needed.

Examples:
  toolhost init json-tool greet
  toolhost init harness notes --repo my-tools --artifact tools

Exit codes: 0 created, 1 a file exists or the manifest would become invalid,
2 bad invocation.
`;

/** Options of `init`. */
interface InitOptions extends CommonOptions {
  /** The folder Artifact receiving the files. */
  artifact?: string;
  /** A harness template (`browser`). */
  template?: string;
}

/**
 * Build the `init` command.
 *
 * @example
 * ```ts
 * import { processIo } from "../exit.ts";
 * import { initCommand } from "./init.ts";
 * initCommand(processIo, () => {});
 * ```
 */
export function initCommand(io: CliIo, done: (code: number) => void): Command {
  const cmd = new Command("init")
    .description(
      "Scaffold a working tool or tool-session harness: its program, a passing test and " +
        "its toolhost.toml declarations.",
    )
    .argument("<kind>", INIT_KINDS.join(" | "))
    .argument("<name>", "tool or session name: [a-z0-9][a-z0-9_-]*, at most 64 characters")
    .option(
      "--artifact <id>",
      'folder Artifact for the files (default: "tools" in a new workspace, else the first folder Artifact)',
    )
    .option("--template <name>", "harness template: browser (headless Chromium)")
    .option("--json", "print the report as JSON")
    .addHelpText("after", HELP_AFTER);
  withCommon(cmd).action((kind: string, name: string, o: InitOptions) => {
    let report;
    try {
      report = scaffold({ kind, name, repo: o.repo, artifact: o.artifact, template: o.template });
    } catch (e) {
      if (e instanceof ScaffoldRolledBack) {
        io.err(
          "toolhost init: the new declarations would make toolhost.toml invalid; nothing was changed.\n",
        );
      }
      throw e;
    }
    // Every scaffold declares `sandbox = "read"`: say now when this host would refuse it.
    const support = sandboxSupport();
    const unconfinable = support.ok ? undefined : support.reason;
    if (o.json) {
      const json = unconfinable === undefined ? report : { ...report, unconfinable };
      io.out(`${JSON.stringify(json, null, 2)}\n`);
    } else {
      const cd = relative(realpathSync(process.cwd()), report.root);
      const locked = existsSync(join(report.root, LOCK_FILE_NAME));
      io.out(formatScaffoldReport(report, { cd, unconfinable, locked }));
    }
    done(EXIT.ok);
  });
  return cmd;
}
