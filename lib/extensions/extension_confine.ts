/**
 * The confinement of a local extension server (lib/sandbox): from its declaration and the
 * eval it serves, or refused with a value-free start error when the host cannot give it.
 *
 * @module
 */

import { join } from "node:path";
import type { Confine } from "../process/sandbox_init.ts";
import { openConfine, unconfinableMessage } from "../sandbox/confine.ts";
import { confinementOf } from "../sandbox/confinement_of.ts";
import type { Workspace } from "../workspace/types.ts";
import type { ConnectionOptions } from "./connection_options.ts";
import { ExtensionStartError } from "./extension_errors.ts";

/**
 * The sandbox of extension server `o.decl` running `program`, undefined when it is
 * unconfined; throws a value-free {@link ExtensionStartError} when it cannot be confined.
 *
 * @example
 * ```ts
 * import type { ExtensionDecl } from "../workspace/parse_extensions.ts";
 * import { confineExtension } from "./extension_confine.ts";
 * const decl = { name: "fx" } as ExtensionDecl; // no sandbox: runs on the host
 * console.log(confineExtension({ decl, root: "/tmp", env: {} }, "/bin/true")); // undefined
 * ```
 */
export function confineExtension(o: ConnectionOptions, program: string): Confine | undefined {
  const ctx = o.sandbox;
  const stateDir = ctx?.stateDir ?? join(o.root, ".toolhost", "state");
  const { confinement } = confinementOf(o.decl, stateDir);
  if (confinement === undefined) return undefined;
  const c = openConfine(confinement, {
    ws: ctx?.ws ?? emptyWorkspace(o.root),
    scope: ctx?.scope ?? [],
    owner: ctx?.owner,
    executionPaths: o.decl.executionPaths ?? [],
    program,
  });
  if (!c.ok) {
    throw new ExtensionStartError(
      `The extension \`${o.decl.name}\` was refused. ${unconfinableMessage(c.reason)}`,
      false,
    );
  }
  return c.confine;
}

function emptyWorkspace(root: string): Workspace {
  return {
    root,
    manifestPath: join(root, "toolhost.toml"),
    artifacts: new Map(),
    evals: new Map(),
    extra: {},
  };
}
