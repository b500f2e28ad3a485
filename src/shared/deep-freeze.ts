/** Freezes `value` and every object and array it reaches, so a value shared between callers cannot be changed by one of them (a change throws in strict code). Returns `value`. */
export function deepFreeze<T>(value: T): T {
  if (value === null || typeof value !== 'object' || Object.isFrozen(value)) return value;
  Object.freeze(value);
  for (const child of Object.values(value as Record<string, unknown>)) deepFreeze(child);
  return value;
}
