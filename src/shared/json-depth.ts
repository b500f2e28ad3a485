/**
 * True when `value` nests arrays/objects deeper than `maxDepth` (a scalar is depth 0, `[]` depth 1).
 * Iterative, so a 100,000-level body costs a loop, not the stack; stops at the first too-deep path.
 */
export function jsonNestingDepthExceeds(value: unknown, maxDepth: number): boolean {
  const pending: { value: unknown; depth: number }[] = [{ value, depth: 0 }];
  while (pending.length > 0) {
    const next = pending.pop() as { value: unknown; depth: number };
    if (next.value === null || typeof next.value !== 'object') continue;
    const depth = next.depth + 1;
    if (depth > maxDepth) return true;
    const children = Array.isArray(next.value) ? next.value : Object.values(next.value);
    for (const child of children) {
      if (child !== null && typeof child === 'object') pending.push({ value: child, depth });
    }
  }
  return false;
}
