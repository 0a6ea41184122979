/**
 * Runtime import cycles: two modules that load each other (directly or through others) run one of
 * them half-initialised, and neither can be read, tested or moved alone. Type-only imports are
 * erased at compile time and load nothing, so they never make a cycle.
 */
import { importsOf, type ImportRef } from './sourceFiles.js';

/** file → the files it loads when it runs (value imports, re-exports, dynamic imports), within `files`. */
export function runtimeImportGraph(files: readonly string[], read: (file: string) => ImportRef[] = importsOf): Map<string, string[]> {
  const known = new Set(files);
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const targets = read(file)
      .filter((r) => !r.typeOnly && r.target !== null && known.has(r.target))
      .map((r) => r.target!);
    graph.set(file, [...new Set(targets)]);
  }
  return graph;
}

/**
 * The graph's strongly connected components that form a cycle (two or more files, or a file that
 * imports itself), each written as one closed path, e.g. ['a.ts', 'b.ts', 'a.ts']. Tarjan's algorithm.
 */
export function importCycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (v: string) => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v)!, index.get(w)!));
      }
    }
    if (low.get(v) !== index.get(v)) return;
    const component = new Set<string>();
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      component.add(w);
    } while (w !== v);
    if (component.size > 1 || (graph.get(v) ?? []).includes(v)) cycles.push(closedPath(graph, component, v));
  };
  for (const v of [...graph.keys()].sort()) if (!index.has(v)) visit(v);
  return cycles;
}

/** The shortest path from `start` back to itself inside one component (breadth first). */
function closedPath(graph: ReadonlyMap<string, readonly string[]>, component: ReadonlySet<string>, start: string): string[] {
  const cameFrom = new Map<string, string>();
  const queue = [start];
  while (queue.length) {
    const v = queue.shift()!;
    for (const w of graph.get(v) ?? []) {
      if (!component.has(w)) continue;
      if (w === start) {
        const path = [start];
        for (let u = v; u !== start; u = cameFrom.get(u)!) path.splice(1, 0, u);
        return [...path, start];
      }
      if (!cameFrom.has(w)) {
        cameFrom.set(w, v);
        queue.push(w);
      }
    }
  }
  return [start, start];
}
