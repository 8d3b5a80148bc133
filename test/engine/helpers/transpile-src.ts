/**
 * Transpiles `src/` into a temp folder as plain ESM, so a child process (which cannot load
 * TypeScript on Node 20) can run the real modules. Types are dropped, not checked.
 */
import { createRequire } from 'node:module';
import { mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const SRC = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'src');

/** Writes `<outDir>/src/**.js`; returns the path of `src` inside it. */
export async function transpileSrc(outDir: string, folders: readonly string[] = ['common', 'engine']): Promise<string> {
  const ts = createRequire(import.meta.url)('typescript') as typeof import('typescript');
  for (const folder of folders) {
    for (const name of readdirSync(join(SRC, folder), { recursive: true, encoding: 'utf8' })) {
      if (!name.endsWith('.ts')) continue;
      const file = join(SRC, folder, name);
      const { outputText } = ts.transpileModule(readFileSync(file, 'utf8'), {
        compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022, verbatimModuleSyntax: true },
        fileName: file,
      });
      const out = join(outDir, 'src', relative(SRC, file)).replace(/\.ts$/, '.js');
      mkdirSync(dirname(out), { recursive: true });
      writeFileSync(out, outputText);
    }
  }
  writeFileSync(join(outDir, 'package.json'), '{"type":"module"}\n');
  // The modules import their packages (through folder indexes, even ones a child never calls).
  symlinkSync(join(SRC, '..', 'node_modules'), join(outDir, 'node_modules'), 'dir');
  return join(outDir, 'src');
}
