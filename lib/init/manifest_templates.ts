/**
 * The `toolhost.toml` text that `toolhost init` writes: a new manifest's head, and the
 * declarations appended for each kind. TypeScript string constants (see fill.ts for the
 * placeholders). Values that are TOML strings arrive already quoted (`*_TOML`).
 *
 * Placeholders: ARTIFACT, NAME, EVAL_NAME, KIND, ARTIFACT_PATH_TOML, COMMAND_TOML (e.g.
 * `"./greet.mjs"`), EXEC_PATH_TOML (workspace-relative program path).
 *
 * @module
 */

/**
 * A new manifest: one folder Artifact and its agent eval.
 *
 * @example
 * ```ts
 * import { NEW_MANIFEST } from "./manifest_templates.ts";
 * console.log(NEW_MANIFEST.includes("audience = \"agent\"")); // true
 * ```
 */
export const NEW_MANIFEST: string =
  `# The toolhost workspace: every tool, session and eval is declared in this file.
# Check it with \`toolhost tools check\`; see \`toolhost --help\` for the other commands.

# A folder Artifact: its tools run in this folder.
[artifacts.{{ARTIFACT}}]
path = {{ARTIFACT_PATH_TOML}}

# The eval "{{ARTIFACT}}/{{EVAL_NAME}}": what an agent sees (\`toolhost tools list --eval {{ARTIFACT}}/{{EVAL_NAME}}\`).
[artifacts.{{ARTIFACT}}.evals.{{EVAL_NAME}}]
audience = "agent"
`;

/**
 * An agent eval appended to an existing manifest whose evals do not cover the Artifact.
 *
 * @example
 * ```ts
 * import { EVAL_DECLARATION } from "./manifest_templates.ts";
 * console.log(EVAL_DECLARATION.includes("{{EVAL_NAME}}")); // true
 * ```
 */
export const EVAL_DECLARATION: string = `
# Added by \`toolhost init {{KIND}} {{NAME}}\`: the eval "{{ARTIFACT}}/{{EVAL_NAME}}" publishes
# the agent tools of Artifact {{ARTIFACT}} (no agent eval covered it).
[artifacts.{{ARTIFACT}}.evals.{{EVAL_NAME}}]
audience = "agent"
`;

/**
 * The declaration of a json-protocol tool.
 *
 * @example
 * ```ts
 * import { JSON_TOOL_DECLARATION } from "./manifest_templates.ts";
 * console.log(JSON_TOOL_DECLARATION.includes('protocol = "json"')); // true
 * ```
 */
export const JSON_TOOL_DECLARATION: string = `
# Added by \`toolhost init {{KIND}} {{NAME}}\`.
[artifacts.{{ARTIFACT}}.views.agent_tools.{{NAME}}]
description = "Greet someone by name, from {artifactName}."
protocol = "json"
command = {{COMMAND_TOML}}
args = []
execution_paths = [{{EXEC_PATH_TOML}}]
# Confined (bubblewrap): reads this eval's Artifacts only, no network, nothing outside.
# An interpreter outside /usr (nvm, asdf, ...) needs its folder in sandbox_read = [...].
sandbox = "read"
input_schema = { type = "object", properties = { who = { type = "string", minLength = 1, maxLength = 100 } }, required = ["who"], additionalProperties = false }
`;

/**
 * The declaration of a plain-protocol tool.
 *
 * @example
 * ```ts
 * import { PLAIN_TOOL_DECLARATION } from "./manifest_templates.ts";
 * console.log(PLAIN_TOOL_DECLARATION.includes('protocol = "plain"')); // true
 * ```
 */
export const PLAIN_TOOL_DECLARATION: string = `
# Added by \`toolhost init {{KIND}} {{NAME}}\`.
[artifacts.{{ARTIFACT}}.views.agent_tools.{{NAME}}]
description = "Find the lines of the files in {artifactName} that contain a fixed text."
protocol = "plain"
command = {{COMMAND_TOML}}
args = ["{text}"]
execution_paths = [{{EXEC_PATH_TOML}}]
# Confined (bubblewrap): reads this eval's Artifacts only, no network, nothing outside.
# An interpreter outside /usr (nvm, asdf, ...) needs its folder in sandbox_read = [...].
sandbox = "read"
input_schema = { type = "object", properties = { text = { type = "string", minLength = 1, maxLength = 200 } }, required = ["text"], additionalProperties = false }
`;

/**
 * The declarations of a tool session and its two bound json tools.
 *
 * @example
 * ```ts
 * import { HARNESS_DECLARATION } from "./manifest_templates.ts";
 * console.log(HARNESS_DECLARATION.includes("agent_sessions")); // true
 * ```
 */
export const HARNESS_DECLARATION: string = `
# Added by \`toolhost init {{KIND}} {{NAME}}\`: a tool session and the tools bound to it.
# The session starts on the first call of a bound tool and is stopped when the eval ends.
[artifacts.{{ARTIFACT}}.views.agent_sessions.{{NAME}}]
start = { command = {{COMMAND_TOML}}, args = ["start"], execution_paths = [{{EXEC_PATH_TOML}}] }
stop = { command = {{COMMAND_TOML}}, args = ["stop"], execution_paths = [{{EXEC_PATH_TOML}}] }
# Confined (bubblewrap) — start, bound calls and stop: this eval's Artifacts read-only,
# the session dir writable, no network; bound calls reach the harness's loopback ports.
# An interpreter outside /usr (nvm, asdf, ...) needs its folder in sandbox_read = [...].
sandbox = "read"

[artifacts.{{ARTIFACT}}.views.agent_tools.{{NAME}}_set]
session = "{{NAME}}"
description = "Store a text value under a key in the {{NAME}} session of {artifactName}."
protocol = "json"
command = {{COMMAND_TOML}}
args = ["set"]
execution_paths = [{{EXEC_PATH_TOML}}]
input_schema = { type = "object", properties = { key = { type = "string", minLength = 1, maxLength = 100 }, value = { type = "string", minLength = 1, maxLength = 10000 } }, required = ["key", "value"], additionalProperties = false }

[artifacts.{{ARTIFACT}}.views.agent_tools.{{NAME}}_get]
session = "{{NAME}}"
description = "Read the value stored under a key in the {{NAME}} session of {artifactName}."
protocol = "json"
command = {{COMMAND_TOML}}
args = ["get"]
execution_paths = [{{EXEC_PATH_TOML}}]
input_schema = { type = "object", properties = { key = { type = "string", minLength = 1, maxLength = 100 } }, required = ["key"], additionalProperties = false }
`;

/**
 * The declarations of a browser tool session (`--template browser`) and its six bound
 * json tools. Confined: the session reads the eval's Artifacts and Chromium's `/etc`
 * files, writes only its session directory (the Chromium profile), and has no network
 * but its own loopback (the harness's web app); Chromium is driven over a pipe.
 *
 * @example
 * ```ts
 * import { BROWSER_DECLARATION } from "./manifest_templates.ts";
 * console.log(BROWSER_DECLARATION.includes("_screenshot]")); // true
 * ```
 */
export const BROWSER_DECLARATION: string = `
# Added by \`toolhost init {{KIND}} {{NAME}} --template browser\`: a browser tool session
# (headless Chromium, open between calls) and the tools bound to it. It starts on the first
# call of a bound tool and is stopped, with every Chromium process, when the eval ends.
[artifacts.{{ARTIFACT}}.views.agent_sessions.{{NAME}}]
start = { command = {{COMMAND_TOML}}, args = ["start"], execution_paths = [{{EXEC_PATHS_TOML}}] }
stop = { command = {{COMMAND_TOML}}, args = ["stop"], execution_paths = [{{EXEC_PATHS_TOML}}] }
# Confined (bubblewrap) — start, bound calls and stop: this eval's Artifacts read-only,
# the session dir (Chromium's profile) writable, no network but the session's own
# loopback, where the harness serves its page. Chromium reads its /etc files.
# An interpreter outside /usr (nvm, asdf, ...) needs its folder in sandbox_read too.
sandbox = "read"
sandbox_read = ["/etc/chromium.d", "/etc/chromium", "/etc/fonts"]

[artifacts.{{ARTIFACT}}.views.agent_tools.{{NAME}}_open_url]
session = "{{NAME}}"
description = "Open a URL in the {{NAME}} browser of {artifactName}: its local app (a path such as /, or http://127.0.0.1:PORT/...) or a file: URL inside the scope."
protocol = "json"
command = {{COMMAND_TOML}}
args = ["open_url"]
execution_paths = [{{EXEC_PATHS_TOML}}]
input_schema = { type = "object", properties = { url = { type = "string", minLength = 1, maxLength = 2000 } }, required = ["url"], additionalProperties = false }

[artifacts.{{ARTIFACT}}.views.agent_tools.{{NAME}}_click]
session = "{{NAME}}"
description = "Click the first element matching a CSS selector in the {{NAME}} browser tab."
protocol = "json"
command = {{COMMAND_TOML}}
args = ["click"]
execution_paths = [{{EXEC_PATHS_TOML}}]
input_schema = { type = "object", properties = { selector = { type = "string", minLength = 1, maxLength = 500 } }, required = ["selector"], additionalProperties = false }

[artifacts.{{ARTIFACT}}.views.agent_tools.{{NAME}}_type_text]
session = "{{NAME}}"
description = "Focus the element matching a CSS selector in the {{NAME}} browser tab and type text into it."
protocol = "json"
command = {{COMMAND_TOML}}
args = ["type_text"]
execution_paths = [{{EXEC_PATHS_TOML}}]
input_schema = { type = "object", properties = { selector = { type = "string", minLength = 1, maxLength = 500 }, text = { type = "string", maxLength = 10000 } }, required = ["selector", "text"], additionalProperties = false }

[artifacts.{{ARTIFACT}}.views.agent_tools.{{NAME}}_snapshot]
session = "{{NAME}}"
description = "A text outline of the {{NAME}} browser tab's page (at most 64 KiB, marked when cut)."
protocol = "json"
command = {{COMMAND_TOML}}
args = ["snapshot"]
execution_paths = [{{EXEC_PATHS_TOML}}]

[artifacts.{{ARTIFACT}}.views.agent_tools.{{NAME}}_screenshot]
session = "{{NAME}}"
description = "A PNG screenshot of the {{NAME}} browser tab's viewport (at most 4 MiB, downscaled when larger)."
protocol = "json"
command = {{COMMAND_TOML}}
args = ["screenshot"]
execution_paths = [{{EXEC_PATHS_TOML}}]

[artifacts.{{ARTIFACT}}.views.agent_tools.{{NAME}}_console_logs]
session = "{{NAME}}"
description = "The {{NAME}} browser tab's console output since the last call (bounded)."
protocol = "json"
command = {{COMMAND_TOML}}
args = ["console_logs"]
execution_paths = [{{EXEC_PATHS_TOML}}]
`;
