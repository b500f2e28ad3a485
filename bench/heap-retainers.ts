import { readFileSync } from 'node:fs';

/**
 * What grew between two heap snapshots, by what holds it: `bun run bench/heap-retainers.ts
 * BEFORE.heapsnapshot AFTER.heapsnapshot [depth] [top]` (V8 format, as `Bun.generateHeapSnapshot('v8')`
 * writes them; `SCALE_HEAP_SNAPSHOT_DIR=dir bun run bench/scale.ts` writes one after each step).
 *
 * Every string and plain object is named by the chain of its first retainers, `depth` levels up
 * (default 4): `Array.[] <- Object.outcome_ids <- Object.metadata <- Object.lesson` is a string
 * held in an array that is the `outcome_ids` field of a `metadata` object, and so on. Prints one
 * JSON line: the heap's size in each snapshot, and the `top` (default 25) chains whose count grew
 * most, with their count in each. This is how the 2M evidence ids held with 10,000 lessons were
 * found (a chain that grew with the lessons held, not with the outcomes).
 */
interface Snapshot {
  snapshot: { meta: { node_fields: string[]; node_types: [string[]]; edge_fields: string[]; edge_types: [string[]] } };
  nodes: number[];
  edges: number[];
  strings: string[];
}

const COUNTED_TYPES = new Set(['string', 'concatenated string', 'sliced string']);

function retainerChains(file: string, depth: number): { bytes: number; chains: Map<string, number> } {
  const snap = JSON.parse(readFileSync(file, 'utf8')) as Snapshot;
  const { node_fields: nodeFields, node_types: nodeTypes, edge_fields: edgeFields, edge_types: edgeTypes } = snap.snapshot.meta;
  const nodeWidth = nodeFields.length;
  const edgeWidth = edgeFields.length;
  const [typeAt, nameAt, sizeAt, edgeCountAt] = ['type', 'name', 'self_size', 'edge_count'].map((f) => nodeFields.indexOf(f)) as [number, number, number, number];
  const [edgeTypeAt, edgeNameAt, edgeToAt] = ['type', 'name_or_index', 'to_node'].map((f) => edgeFields.indexOf(f)) as [number, number, number];
  const count = snap.nodes.length / nodeWidth;
  const typeOf = (n: number) => nodeTypes[0][snap.nodes[n * nodeWidth + typeAt] as number] as string;
  const nameOf = (n: number) => snap.strings[snap.nodes[n * nodeWidth + nameAt] as number] as string;
  // The first non-weak retainer of each node, and the name of the edge it holds it by.
  const retainer = new Int32Array(count).fill(-1);
  const retainedAs: string[] = new Array(count);
  let bytes = 0;
  for (let n = 0, e = 0; n < count; n++) {
    bytes += snap.nodes[n * nodeWidth + sizeAt] as number;
    for (let k = snap.nodes[n * nodeWidth + edgeCountAt] as number; k > 0; k--, e += edgeWidth) {
      const kind = edgeTypes[0][snap.edges[e + edgeTypeAt] as number] as string;
      const to = (snap.edges[e + edgeToAt] as number) / nodeWidth;
      if (kind === 'weak' || retainer[to] !== -1) continue;
      retainer[to] = n;
      retainedAs[to] = kind === 'element' || kind === 'hidden' ? '[]' : (snap.strings[snap.edges[e + edgeNameAt] as number] as string).slice(0, 30);
    }
  }
  const chains = new Map<string, number>();
  for (let n = 0; n < count; n++) {
    const type = typeOf(n);
    const counted = COUNTED_TYPES.has(type) ? type : type === 'object' && nameOf(n) === 'Object' ? 'Object' : null;
    if (!counted) continue;
    const links: string[] = [];
    for (let at = n, level = 0; level < depth; level++) {
      const up = retainer[at] as number;
      if (up === -1) {
        links.push('(root)');
        break;
      }
      links.push(`${nameOf(up).slice(0, 40)}.${retainedAs[at]}`);
      at = up;
    }
    const key = `${counted} :: ${links.join(' <- ')}`;
    chains.set(key, (chains.get(key) ?? 0) + 1);
  }
  return { bytes, chains };
}

const [beforeFile, afterFile] = process.argv.slice(2);
if (!beforeFile || !afterFile) {
  process.stderr.write('usage: bun run bench/heap-retainers.ts BEFORE.heapsnapshot AFTER.heapsnapshot [depth] [top]\n');
  process.exit(2);
}
const depth = Number(process.argv[4] ?? 4);
const top = Number(process.argv[5] ?? 25);
const before = retainerChains(beforeFile, depth);
const after = retainerChains(afterFile, depth);
const grown = [...new Set([...before.chains.keys(), ...after.chains.keys()])]
  .map((chain) => ({ chain, before: before.chains.get(chain) ?? 0, after: after.chains.get(chain) ?? 0 }))
  .sort((a, b) => b.after - b.before - (a.after - a.before))
  .slice(0, top);
process.stdout.write(`${JSON.stringify({ bench: 'heap-retainers', heap_mb: { before: Math.round(before.bytes / 1_048_576), after: Math.round(after.bytes / 1_048_576) }, depth, grown })}\n`);
