/**
 * Safe lookups by a manifest or lock name: a name such as `constructor` or `__proto__`
 * must never find (or set) what `Object.prototype` carries.
 *
 * @module
 */

/**
 * The value `record` holds under its own key `name`, else undefined.
 *
 * @example
 * ```ts
 * import { own } from "./own.ts";
 * own({ a: 1 }, "a"); // 1
 * own({ a: 1 }, "constructor"); // undefined
 * ```
 */
export function own<T>(
  record: Readonly<Record<string, T>> | undefined,
  name: string,
): T | undefined {
  return record !== undefined && Object.hasOwn(record, name) ? record[name] : undefined;
}

/**
 * An empty record without a prototype, so assigning any name (even `__proto__`) makes an
 * own key.
 *
 * @example
 * ```ts
 * import { emptyRecord } from "./own.ts";
 * const r = emptyRecord<number>();
 * r["__proto__"] = 1;
 * Object.keys(r); // ["__proto__"]
 * ```
 */
export function emptyRecord<T>(): Record<string, T> {
  return Object.create(null) as Record<string, T>;
}
