/**
 * What `toolhost init KIND NAME` writes for a target: the files (with their modes), the
 * manifest text (a new manifest's head and the appended declarations), the tools it
 * publishes, and an example call. Pure: touches no file.
 *
 * @module
 */

import { publishedName } from "../workspace/names.ts";
import { posix } from "node:path";
import { fillTemplate } from "./fill.ts";
import { BROWSER_DRIVER } from "./browser_driver_template.ts";
import { BROWSER_FILES, BROWSER_PAGE } from "./browser_files_template.ts";
import { BROWSER_PROGRAM } from "./browser_program_template.ts";
import { BROWSER_TEST } from "./browser_test_template.ts";
import { HARNESS_PROGRAM, HARNESS_TEST } from "./harness_templates.ts";
import { JSON_TOOL_PROGRAM, JSON_TOOL_TEST } from "./json_tool_templates.ts";
import type { HarnessTemplate, InitKind } from "./kinds.ts";
import {
  BROWSER_DECLARATION,
  EVAL_DECLARATION,
  HARNESS_DECLARATION,
  JSON_TOOL_DECLARATION,
  NEW_MANIFEST,
  PLAIN_TOOL_DECLARATION,
} from "./manifest_templates.ts";
import { PLAIN_TOOL_PROGRAM, PLAIN_TOOL_TEST } from "./plain_tool_templates.ts";
import type { InitTarget } from "./target.ts";

/** One file to create. */
export interface PlannedFile {
  /** Workspace-relative POSIX path. */
  path: string;
  /** Its text. */
  text: string;
  /** Its mode (0o755 for programs, 0o644 for tests). */
  mode: number;
  /** What it is, for the report. */
  role: string;
}

/** Everything one scaffold writes. */
export interface ScaffoldPlan {
  /** Files to create: the program, its test, then the files the program loads. */
  files: PlannedFile[];
  /** The whole text of a new manifest, or undefined when it exists. */
  newManifest?: string;
  /** Text appended to an existing manifest (undefined for a new one). */
  appended?: string;
  /** The published names of the new tools. */
  tools: string[];
  /** A tool to try and arguments for it. */
  example: { tool: string; args: Record<string, unknown> };
}

/** A file besides the program and its test: `NAME<suffix>` in the Artifact folder. */
interface ExtraFile {
  suffix: string;
  text: string;
  role: string;
}

interface KindTemplates {
  program: string;
  extension: string;
  test: string;
  declaration: string;
  role: string;
  tools: (name: string) => string[];
  exampleArgs: (name: string) => Record<string, unknown>;
  /** Modules and data the program loads (mode 0o644), in its execution paths too. */
  extras?: ExtraFile[];
}

const KINDS: Record<InitKind, KindTemplates> = {
  "json-tool": {
    program: JSON_TOOL_PROGRAM,
    extension: ".mjs",
    test: JSON_TOOL_TEST,
    declaration: JSON_TOOL_DECLARATION,
    role: "the tool (json protocol, Node.js)",
    tools: (name) => [name],
    exampleArgs: () => ({ who: "world" }),
  },
  "plain-tool": {
    program: PLAIN_TOOL_PROGRAM,
    extension: ".sh",
    test: PLAIN_TOOL_TEST,
    declaration: PLAIN_TOOL_DECLARATION,
    role: "the tool (plain protocol, POSIX sh)",
    tools: (name) => [name],
    exampleArgs: (name) => ({ text: name }), // matches lines of its own files
  },
  harness: {
    program: HARNESS_PROGRAM,
    extension: ".mjs",
    test: HARNESS_TEST,
    declaration: HARNESS_DECLARATION,
    role: "the session harness: start, stop, set, get (Node.js)",
    tools: (name) => [`${name}_set`, `${name}_get`],
    exampleArgs: () => ({ key: "greeting", value: "hello" }),
  },
};

const BROWSER_ACTIONS = [
  "open_url",
  "click",
  "type_text",
  "snapshot",
  "screenshot",
  "console_logs",
];

const TEMPLATES: Record<HarnessTemplate, KindTemplates> = {
  browser: {
    program: BROWSER_PROGRAM,
    extension: ".mjs",
    test: BROWSER_TEST,
    declaration: BROWSER_DECLARATION,
    role: "the browser session harness: start, stop and its six tools (Node.js)",
    tools: (name) => BROWSER_ACTIONS.map((a) => `${name}_${a}`),
    exampleArgs: () => ({ url: "/" }),
    extras: [
      { suffix: "_browser.mjs", text: BROWSER_DRIVER, role: "Chromium over the DevTools pipe" },
      { suffix: "_files.mjs", text: BROWSER_FILES, role: "its web app server and URL policy" },
      { suffix: ".html", text: BROWSER_PAGE, role: "the page its app serves" },
    ],
  },
};

/** The relative URL from a folder `depth` levels below the root back to it. */
function rootUrl(artifactPath: string): string {
  const depth = artifactPath.split("/").filter((s) => s !== "" && s !== ".").length;
  return depth === 0 ? "./" : "../".repeat(depth);
}

/**
 * Plan the scaffold of `kind` `name` into `target` (a harness from `template` when given).
 *
 * @example
 * ```ts
 * import { planScaffold } from "./plan.ts";
 * const plan = planScaffold("json-tool", "greet", {
 *   root: "/ws", manifestExists: false, artifactId: "tools", artifactPath: "tools",
 *   evalName: "agent", evalId: "tools/agent", declareEval: true,
 * });
 * console.log(plan.files.map((f) => f.path)); // ["tools/greet.mjs", "tools/greet.test.mjs"]
 * ```
 */
export function planScaffold(
  kind: InitKind,
  name: string,
  target: InitTarget,
  template?: HarnessTemplate,
): ScaffoldPlan {
  const k = template === undefined ? KINDS[kind] : TEMPLATES[template];
  const art = target.artifactId;
  const programFile = `${name}${k.extension}`;
  const programPath = posix.join(target.artifactPath, programFile);
  const testPath = posix.join(target.artifactPath, `${name}.test.mjs`);
  const extras = (k.extras ?? []).map((e) => ({
    ...e,
    path: posix.join(target.artifactPath, `${name}${e.suffix}`),
  }));
  const tools = k.tools(name).map((t) => publishedName(t, art));
  const vars: Record<string, string> = {
    NAME: name,
    KIND: kind,
    ARTIFACT: art,
    EVAL: target.evalId,
    EVAL_NAME: target.evalName,
    TOOL: tools[0],
    SET_TOOL: tools[0],
    GET_TOOL: tools[1] ?? tools[0],
    ROOT_URL: rootUrl(target.artifactPath),
    PROGRAM_PATH: programPath,
    TEST_PATH: testPath,
    ARTIFACT_PATH_TOML: JSON.stringify(target.artifactPath),
    COMMAND_TOML: JSON.stringify(`./${programFile}`),
    EXEC_PATH_TOML: JSON.stringify(programPath),
    EXEC_PATHS_TOML: [programPath, ...extras.map((e) => e.path)].map((p) => JSON.stringify(p))
      .join(", "),
  };
  const declarations = (target.declareEval ? EVAL_DECLARATION : "") + k.declaration;
  const plan: ScaffoldPlan = {
    files: [
      { path: programPath, text: fillTemplate(k.program, vars), mode: 0o755, role: k.role },
      {
        path: testPath,
        text: fillTemplate(k.test, vars),
        mode: 0o644,
        role: "its test (node --test)",
      },
      ...extras.map((e) => ({
        path: e.path,
        text: fillTemplate(e.text, vars),
        mode: 0o644,
        role: e.role,
      })),
    ],
    tools,
    example: { tool: tools[0], args: k.exampleArgs(name) },
  };
  if (target.manifestExists) plan.appended = fillTemplate(declarations, vars);
  else plan.newManifest = fillTemplate(NEW_MANIFEST + k.declaration, vars);
  return plan;
}
