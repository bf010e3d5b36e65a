/**
 * `toolhost graph`: the workspace structure — Artifacts, kinds, children, evals and
 * declared tools — as an indented tree, or JSON with `--json`.
 *
 * @module
 */

import { Command } from "commander";
import { type GraphArtifact, workspaceGraph } from "../../builtins/graph.ts";
import { type CommonOptions, openWorkspace, withCommon } from "../common_options.ts";
import { type CliIo, EXIT } from "../exit.ts";

function printTree(nodes: GraphArtifact[], io: CliIo): void {
  const byId = new Map(nodes.map((n) => [n.id, n]));
  const walk = (n: GraphArtifact, depth: number) => {
    const pad = "  ".repeat(depth);
    io.out(`${pad}${n.id} (${n.kind}) ${n.path}\n`);
    for (const [name, e] of Object.entries(n.evals)) {
      const refs = e.references.length ? ` references ${e.references.join(", ")}` : "";
      io.out(`${pad}  eval ${n.id}/${name} [${e.audience}]${refs}\n`);
    }
    if (n.tools.agent.length) io.out(`${pad}  agent tools: ${n.tools.agent.join(", ")}\n`);
    if (n.tools.human.length) io.out(`${pad}  human tools: ${n.tools.human.join(", ")}\n`);
    if (n.sessions.length) io.out(`${pad}  sessions: ${n.sessions.join(", ")}\n`);
    for (const childId of Object.values(n.children)) {
      const child = byId.get(childId);
      if (child) walk(child, depth + 1);
    }
  };
  for (const n of nodes) if (n.parent === undefined) walk(n, 0);
}

/**
 * Build the `graph` command.
 *
 * @example
 * ```ts
 * import { processIo } from "../exit.ts";
 * import { graphCommand } from "./graph.ts";
 * graphCommand(processIo, () => {});
 * ```
 */
export function graphCommand(io: CliIo, done: (code: number) => void): Command {
  const cmd = new Command("graph")
    .description("Print the workspace structure: Artifacts, children, evals and declared tools.")
    .option("--json", "print JSON")
    .addHelpText("after", "\nExample:\n  toolhost graph --repo examples\n");
  withCommon(cmd).action(async (o: CommonOptions) => {
    const { ws } = await openWorkspace(o);
    const graph = workspaceGraph(ws, Number.MAX_SAFE_INTEGER);
    if (o.json) io.out(`${JSON.stringify(graph, null, 2)}\n`);
    else printTree(graph.artifacts, io);
    done(EXIT.ok);
  });
  return cmd;
}
