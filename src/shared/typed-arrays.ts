/** A typed array the plugin's in-memory indexes grow. */
type GrowableArray = Float64Array | Float32Array | Int32Array | Uint32Array;

/** A copy of `array` with room for at least `length` values (twice its size, or more). */
export function grown<T extends GrowableArray>(array: T, length: number): T {
  const next = new (array.constructor as new (n: number) => T)(Math.max(length, array.length * 2));
  next.set(array);
  return next;
}
