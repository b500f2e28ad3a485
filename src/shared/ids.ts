import { v5 as uuidv5 } from 'uuid';

/** Namespace of every deterministic id this plugin makes (a fixed random UUID). */
const NAMESPACE = '4f0f7c8e-6f2a-4d4b-9a53-2f4f2b8e1c77';

/** A UUID that is the same every time for the same parts: re-doing work finds the same ids. */
export function stableId(...parts: string[]): `${string}-${string}-${string}-${string}-${string}` {
  return uuidv5(JSON.stringify(parts), NAMESPACE) as `${string}-${string}-${string}-${string}-${string}`;
}
