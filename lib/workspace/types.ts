/**
 * The validated, in-memory form of a `toolhost.toml` workspace.
 *
 * @module
 */

import type { ResourceLimits } from "../limits/types.ts";
import type { SandboxPolicy, WorkspaceSandbox } from "../sandbox/policy.ts";

/** A folder Artifact or a file Artifact. */
export type ArtifactKind = "folder" | "file";

/** An argv element: a literal (with `{property}` placeholders for plain) or a scoped Artifact. */
export type ArgvElement = string | { artifact: string };

/** Eval audience. */
export type Audience = "agent" | "human";

/** Names of the built-in tools (the native catalog included). */
export type BuiltinName =
  | "read"
  | "list"
  | "glob"
  | "grep"
  | "view_image"
  | "section"
  | "help"
  | "graph"
  | NativeName;

/** Names of the native tools (`lib/native`), declared like built-ins. */
export type NativeName =
  | "files_read"
  | "files_list"
  | "files_find"
  | "files_inspect"
  | "files_search"
  | "files_write"
  | "files_edit"
  | "files_patch"
  | "shell_exec"
  | "git_status"
  | "git_diff";

/** A built-in tool declaration. */
export interface BuiltinToolDecl {
  /** Discriminant. */
  type: "builtin";
  /** Declared short name (the TOML table name). */
  name: string;
  /** Which built-in. */
  builtin: BuiltinName;
  /** Fixed target arguments, when given. */
  args?: string[];
  /** Description template (already validated), or the built-in's default. */
  description: string;
  /** TOML key path of the declaration. */
  keyPath: string;
  /**
   * Set when `builtin` names a plugin tool rather than a built-in: the providing
   * plugin and the tool's input schema. `builtin` then holds the plugin tool's name.
   */
  plugin?: { name: string; inputSchema: Record<string, unknown> };
  /** `shell_exec`, `git_status`, `git_diff`: confinement of their processes (lib/sandbox). */
  sandbox?: SandboxPolicy;
}

/** A command tool declaration (json or plain protocol). */
export interface CommandToolDecl {
  /** Discriminant. */
  type: "command";
  /** Declared short name. */
  name: string;
  /** Description template (may contain `{artifactName}`). */
  description: string;
  /** Protocol. */
  protocol: "json" | "plain";
  /** Command as written: a PATH name (no `/`) or a path relative to the owner's cwd. */
  command: string;
  /** argv template. */
  args: ArgvElement[];
  /** The input JSON Schema (root type object). */
  inputSchema: Record<string, unknown>;
  /** Deadline in ms (1..2147483647, default 120000). */
  timeoutMs: number;
  /** Session this tool is bound to (same Artifact), if any. */
  session?: string;
  /** Workspace-relative execution paths (unique, at most 64). */
  executionPaths: string[];
  /** Workspace-relative artifact roots for odek refs. */
  artifactRoots: string[];
  /** TOML key path of the declaration. */
  keyPath: string;
  /** `max_memory_mb` / `max_cpu_seconds` / `max_processes`, when any is set. */
  limits?: ResourceLimits;
  /** Plain tools: `overflow`. Absent means `"truncate"`. */
  overflow?: "truncate" | "artifact";
  /** Plain tools: `success_exit_codes`. Absent means `[0]`. */
  successExitCodes?: number[];
  /** Confinement in effect (lib/sandbox); absent means `host`. */
  sandbox?: SandboxPolicy;
}

/** Any tool declaration. */
export type ToolDecl = BuiltinToolDecl | CommandToolDecl;

/** A session start or stop command. */
export interface SessionCommand {
  /** Command as written. */
  command: string;
  /** argv template (literals and `{artifact: ID}` elements). */
  args: ArgvElement[];
  /** Workspace-relative execution paths. */
  executionPaths: string[];
  /** TOML key path. */
  keyPath: string;
}

/** A tool session declaration. */
export interface SessionDecl {
  /** Session name. */
  name: string;
  /** Start command. */
  start: SessionCommand;
  /** Stop command. */
  stop: SessionCommand;
  /** TOML key path. */
  keyPath: string;
  /** Limits of the harness's process group for the session's life. */
  limits?: ResourceLimits;
  /** Confinement of start, stop and bound calls (lib/sandbox); absent means `host`. */
  sandbox?: SandboxPolicy;
}

/** An eval declared on an Artifact. */
export interface EvalDecl {
  /** Eval name (the part after `/`). */
  name: string;
  /** Full eval id `artifact/eval`. */
  id: string;
  /** Owning Artifact id. */
  artifactId: string;
  /** Audience. */
  audience: Audience;
  /** Referenced Artifact ids admitted to scope. */
  references: string[];
  /** TOML key path. */
  keyPath: string;
}

/** A declared Artifact. */
export interface Artifact {
  /** Canonical Artifact id. */
  id: string;
  /** Folder or file. */
  kind: ArtifactKind;
  /** Workspace-relative POSIX path as declared (normalized). */
  relPath: string;
  /** Canonical absolute physical path. */
  physicalPath: string;
  /** Working directory for its commands: the folder, or a file's containing folder. */
  cwd: string;
  /** Nearest enclosing folder Artifact, if any. */
  parent?: string;
  /** Direct child Artifacts: logical path relative to this Artifact → Artifact id. */
  children: Record<string, string>;
  /** Evals declared on it, by name. */
  evals: Record<string, EvalDecl>;
  /** `views.agent_tools`, by short name. */
  agentTools: Record<string, ToolDecl>;
  /** `views.human_tools`, by short name. */
  humanTools: Record<string, ToolDecl>;
  /** `views.agent_sessions`, by name. */
  sessions: Record<string, SessionDecl>;
  /** Workspace-relative artifact roots declared on the Artifact. */
  artifactRoots: string[];
  /** TOML key path (`artifacts.ID`). */
  keyPath: string;
}

/** A loaded, validated workspace. Loading runs no process and creates nothing. */
export interface Workspace {
  /** Canonical absolute workspace root. */
  root: string;
  /** Absolute path of `toolhost.toml`. */
  manifestPath: string;
  /** Artifacts by id, in manifest order. */
  artifacts: Map<string, Artifact>;
  /** Evals by full id `artifact/eval`, in manifest order. */
  evals: Map<string, EvalDecl>;
  /** Raw further tables kept for later subsystems (plugins, hooks, extensions). */
  extra: Record<string, unknown>;
  /** The top-level `[sandbox]` table, when present. */
  sandbox?: WorkspaceSandbox;
}
