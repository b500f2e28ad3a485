import { heapStats } from 'bun:jsc';
import { report, round } from './lib';

/**
 * How much of a WebAssembly memory Bun's collector counts in the heap size it paces itself by
 * (`heapStats().extraMemorySize`): a memory of `MB` megabytes is made, then a `Uint8Array` over its
 * buffer, as Emscripten keeps over PGlite's (`HEAPU8`), each step after a full collection. Prints
 * the extra memory each step added and its ratio to the memory's size. Bun only (`bun:jsc`).
 */
const MB = Number(process.argv[2] ?? 100);
const PAGE = 65_536;
const mb = (bytes: number) => bytes / 1_048_576;

function extraAfterFullCollection(): number {
  Bun.gc(true);
  return heapStats().extraMemorySize;
}

const before = extraAfterFullCollection();
const memory = new WebAssembly.Memory({ initial: Math.ceil((MB * 1_048_576) / PAGE) });
const withMemory = extraAfterFullCollection();
const view = new Uint8Array(memory.buffer);
for (let i = 0; i < view.length; i += 4_096) view[i] = 1;
const withView = extraAfterFullCollection();
report({
  bench: 'wasm-extra-memory',
  bun: Bun.version,
  memory_mb: round(mb(memory.buffer.byteLength), 1),
  extra_memory_added_by_memory_mb: round(mb(withMemory - before), 1),
  extra_memory_added_by_memory_and_view_mb: round(mb(withView - before), 1),
  counted_per_byte_of_memory: round((withView - before) / memory.buffer.byteLength, 2),
  view_bytes: view.byteLength,
});
