/**
 * Lock differences carry names out of `toolhost.lock` (an extension's locked tools, tools
 * the workspace no longer has, eval ids, keys and paths), which may hold a protected
 * value: a lock written before the value was protected, or edited by hand. Every such
 * text is redacted whole, before `describeDrift` escapes and cuts it, so no cut can leave
 * a part of a value.
 *
 * @module
 */

import type { Protector } from "../redact/types.ts";
import type { Drift } from "./compare.ts";

/**
 * `d` with its name, eval id, key and path redacted by each of `protectors`.
 *
 * @example
 * ```ts
 * import { Redactor } from "../redact/redactor.ts";
 * import { redactDrift } from "./redact_drift.ts";
 * const r = new Redactor();
 * r.add("tok-123456");
 * redactDrift({ kind: "tool", name: "x_tok-123456", field: "entry", change: "added" }, [r]).name;
 * // "x_[protected]"
 * ```
 */
export function redactDrift(d: Drift, protectors: readonly Protector[]): Drift {
  const out: Drift = { ...d, name: redactName(d.name, protectors) };
  if (d.evalId !== undefined) out.evalId = redactName(d.evalId, protectors);
  if (d.key !== undefined) out.key = redactName(d.key, protectors);
  if (d.path !== undefined) out.path = redactName(d.path, protectors);
  return out;
}

/**
 * `name` with every form of every protected value of each of `protectors` replaced by
 * `[protected]`.
 *
 * @example
 * ```ts
 * import { Redactor } from "../redact/redactor.ts";
 * import { redactName } from "./redact_drift.ts";
 * const r = new Redactor();
 * r.add("tok-123456");
 * redactName("get_tok-123456_fx", [r]); // "get_[protected]_fx"
 * ```
 */
export function redactName(name: string, protectors: readonly Protector[]): string {
  let out = name;
  for (const p of protectors) if (p.active) out = p.text(out);
  return out;
}
