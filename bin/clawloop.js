#!/usr/bin/env node
// The `clawloop` command. The TypeScript sources are compiled to dist/ by `npm install` (prepare) or `npm run build`.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const entry = new URL('../dist/main/cli/main.js', import.meta.url);
if (!existsSync(fileURLToPath(entry))) {
  console.error('clawloop: dist/ is missing; run `npm run build` in the ClawLoop folder first.');
  process.exit(1);
}
const { main } = await import(entry.href);
process.exitCode = await main(process.argv.slice(2));
