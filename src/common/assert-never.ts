/**
 * The `default` of a switch that handles every member of a union: it does not compile while a
 * member is left unhandled, and throws (a bug) if a value outside the type arrives at run time.
 */
export function assertNever(value: never, what: string): never {
  throw new Error(`unhandled ${what}: ${String(value)}`);
}
