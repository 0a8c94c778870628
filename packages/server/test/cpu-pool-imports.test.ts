import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * What the CPU pool's threads load (R40): `src/cpu-tasks.ts` and every file it reaches. A
 * thread is a V8 isolate of its own, and each module it loads is loaded again there: the
 * contracts package's index (every zod schema of the API, built at import) took a thread
 * from 27 to 44 MB of RSS, and a sending worker over B9's 200 MB goal. So these files take
 * what they need from contracts by path (`@sendwell/contracts/html/html-bounds`), never from
 * its index.
 */
const SRC = path.resolve(import.meta.dirname, '../src');

/** Relative imports, static and dynamic, and the bare contracts index, of one file. */
const importsOf = (file: string) => {
  const code = fs.readFileSync(file, 'utf8');
  const specifiers = [
    // Type-only imports are erased from the build: a thread never loads them.
    ...code.matchAll(/^\s*(?:import|export)\s(?!type\s)[^;]*?from\s+'([^']+)'/gm),
    ...code.matchAll(/import\(\s*'([^']+)'\s*\)/g),
  ].map((match) => match[1]!);
  return specifiers;
};

const reachableFrom = (entry: string) => {
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const specifier of importsOf(file)) {
      if (!specifier.startsWith('.')) continue;
      visit(path.resolve(path.dirname(file), `${specifier}.ts`));
    }
  };
  visit(entry);
  return [...seen];
};

describe('what a CPU pool thread loads', () => {
  it('reaches the modules it runs and takes contracts by path, not its index', () => {
    const files = reachableFrom(path.join(SRC, 'cpu-tasks.ts'));
    // The walk does reach the task modules (a broken walk would pass anything).
    expect(files.map((file) => path.relative(SRC, file))).toEqual(
      expect.arrayContaining(['modules/delivery/text-part.ts', 'modules/delivery/tracking-links.ts']),
    );
    const fromIndex = files.filter((file) => importsOf(file).includes('@sendwell/contracts'));
    expect(fromIndex.map((file) => path.relative(SRC, file))).toEqual([]);
  });
});
