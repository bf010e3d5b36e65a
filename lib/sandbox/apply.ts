/**
 * The workspace default applied to every declaration that starts a process: after the
 * manifest is parsed, each command tool, session, extension and hook gets the policy in
 * effect as its `sandbox` field — whenever the manifest mentions confinement at all — so
 * `tools check` shows it and the lock pins it with the rest of the declaration.
 *
 * @module
 */

import type { Problems } from "../workspace/problems.ts";
import {
  type DeclaredSandbox,
  effectiveSandbox,
  type SandboxPolicy,
  type WorkspaceSandbox,
} from "./policy.ts";

/** A declaration that may carry a policy. */
export interface Confinable {
  /** The policy in effect; absent means `host` in a manifest that never mentions it. */
  sandbox?: SandboxPolicy;
  /** TOML key path of the declaration. */
  keyPath: string;
}

const declared = new WeakMap<Confinable, DeclaredSandbox>();

/**
 * Remember a declaration's own policy keys until {@link applySandboxDefaults} runs.
 *
 * @example
 * ```ts
 * import { noteDeclaredSandbox } from "./apply.ts";
 * const decl = { keyPath: "extensions.fs" };
 * noteDeclaredSandbox(decl, { mode: "read" });
 * ```
 */
export function noteDeclaredSandbox<T extends Confinable>(
  decl: T,
  own: DeclaredSandbox | undefined,
): T {
  if (own !== undefined) declared.set(decl, own);
  return decl;
}

/**
 * Give every declaration its policy in effect. Nothing is set when neither `[sandbox]`
 * nor any declaration mentions confinement (the seed's contract, byte for byte).
 *
 * @example
 * ```ts
 * import { Problems } from "../workspace/problems.ts";
 * import { applySandboxDefaults, type Confinable, noteDeclaredSandbox } from "./apply.ts";
 * const decl = noteDeclaredSandbox<Confinable>({ keyPath: "extensions.fs" }, { mode: "read" });
 * applySandboxDefaults(new Problems("toolhost.toml", ""), [decl], undefined);
 * ```
 */
export function applySandboxDefaults(
  p: Problems,
  decls: readonly Confinable[],
  ws: WorkspaceSandbox | undefined,
): void {
  const mentioned = ws !== undefined || decls.some((d) => declared.has(d));
  if (!mentioned) return;
  for (const d of decls) {
    d.sandbox = effectiveSandbox(p, d.keyPath, declared.get(d), ws);
  }
}

/**
 * The policy in effect of a declaration (`host` when it carries none).
 *
 * @example
 * ```ts
 * import { policyOf } from "./apply.ts";
 * policyOf({}).mode; // "host"
 * ```
 */
export function policyOf(decl: { sandbox?: SandboxPolicy }): SandboxPolicy {
  return decl.sandbox ?? { mode: "host", network: true, read: [], write: [] };
}
