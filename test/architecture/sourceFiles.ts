/**
 * Reads the repository's TypeScript sources the way the architecture tests need them: which
 * modules each file imports (and whether only for types), and how long its functions are. Uses
 * the TypeScript compiler's parser, so comments and strings never count as imports.
 */
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { ROOT } from '../helpers/paths.js';

/** One import, re-export or dynamic import of a module. */
export interface ImportRef {
  /** The importing file, relative to the repository root (forward slashes). */
  file: string;
  line: number;
  /** The module specifier as written, e.g. '../engine/index.js' or '@tensorflow/tfjs-core'. */
  specifier: string;
  /** The file a relative specifier points at (repository-relative, `.js` read as `.ts`); null for packages. */
  target: string | null;
  /** Erased at compile time (`import type`, `export type`, only `type` specifiers, `import('…')` types): loads nothing. */
  typeOnly: boolean;
}

/** The `.ts`/`.tsx` files under a repository folder, repository-relative; none when the folder does not exist. */
export function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (rel: string) => {
    const abs = path.join(ROOT, rel);
    if (!fs.existsSync(abs)) return;
    for (const e of fs.readdirSync(abs, { withFileTypes: true })) {
      const child = `${rel}/${e.name}`;
      if (e.isDirectory()) walk(child);
      else if (/\.tsx?$/.test(e.name) && !e.name.endsWith('.d.ts')) out.push(child);
    }
  };
  walk(dir.replace(/\/$/, ''));
  return out.sort();
}

export function readSource(file: string): string {
  return fs.readFileSync(path.join(ROOT, file), 'utf8');
}

function parse(file: string, text: string): ts.SourceFile {
  return ts.createSourceFile(file, text, ts.ScriptTarget.ES2022, true, file.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
}

/** Where a relative specifier points, as a repository-relative source path. */
function resolve(file: string, specifier: string): string | null {
  if (!specifier.startsWith('.')) return null;
  const joined = path.posix.normalize(path.posix.join(path.posix.dirname(file), specifier));
  const base = joined.replace(/\.js$/, '');
  for (const candidate of [`${base}.ts`, `${base}.tsx`, `${base}/index.ts`]) {
    if (fs.existsSync(path.join(ROOT, candidate))) return candidate;
  }
  return joined;
}

function importIsTypeOnly(d: ts.ImportDeclaration): boolean {
  const c = d.importClause;
  if (!c) return false; // `import './x.js'` runs the module
  if (c.isTypeOnly) return true;
  const named = c.namedBindings;
  return !c.name && !!named && ts.isNamedImports(named) && named.elements.length > 0 && named.elements.every((e) => e.isTypeOnly);
}

function exportIsTypeOnly(d: ts.ExportDeclaration): boolean {
  if (d.isTypeOnly) return true;
  const c = d.exportClause;
  return !!c && ts.isNamedExports(c) && c.elements.length > 0 && c.elements.every((e) => e.isTypeOnly);
}

/** Every module `file` imports: import and export-from declarations, `import('…')` calls and types, `require`. */
export function importsOf(file: string, text = readSource(file)): ImportRef[] {
  const sf = parse(file, text);
  const refs: ImportRef[] = [];
  const add = (node: ts.Node, spec: ts.Expression | undefined, typeOnly: boolean) => {
    if (!spec || !ts.isStringLiteralLike(spec)) return;
    const line = sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1;
    refs.push({ file, line, specifier: spec.text, target: resolve(file, spec.text), typeOnly });
  };
  const visit = (n: ts.Node) => {
    if (ts.isImportDeclaration(n)) add(n, n.moduleSpecifier, importIsTypeOnly(n));
    else if (ts.isExportDeclaration(n)) add(n, n.moduleSpecifier, exportIsTypeOnly(n));
    else if (ts.isImportEqualsDeclaration(n) && ts.isExternalModuleReference(n.moduleReference))
      add(n, n.moduleReference.expression, n.isTypeOnly);
    else if (ts.isImportTypeNode(n) && ts.isLiteralTypeNode(n.argument)) add(n, n.argument.literal, true);
    else if (
      ts.isCallExpression(n) &&
      (n.expression.kind === ts.SyntaxKind.ImportKeyword || (ts.isIdentifier(n.expression) && n.expression.text === 'require'))
    )
      add(n, n.arguments[0], false);
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return refs;
}

/** One function, method, constructor, accessor or arrow function with a body, and its length in lines. */
export interface FunctionSize {
  file: string;
  line: number;
  name: string;
  lines: number;
}

function functionName(n: ts.SignatureDeclaration, sf: ts.SourceFile): string {
  const own = n.name?.getText(sf);
  const owner = ts.isClassLike(n.parent) && n.parent.name ? `${n.parent.name.text}.` : '';
  if (ts.isConstructorDeclaration(n)) return `${owner}constructor`;
  if (own) return owner + own;
  const p = n.parent;
  if ((ts.isVariableDeclaration(p) || ts.isPropertyAssignment(p) || ts.isPropertyDeclaration(p)) && p.name) return p.name.getText(sf);
  return '(anonymous function)';
}

/** Every function-like node with a body; nested functions are measured on their own as well. */
export function functionSizes(file: string, text = readSource(file)): FunctionSize[] {
  const sf = parse(file, text);
  const out: FunctionSize[] = [];
  const visit = (n: ts.Node) => {
    if (ts.isFunctionLike(n) && 'body' in n && n.body) {
      const first = sf.getLineAndCharacterOfPosition(n.getStart(sf)).line;
      const last = sf.getLineAndCharacterOfPosition(n.getEnd()).line;
      out.push({ file, line: first + 1, name: functionName(n, sf), lines: last - first + 1 });
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return out;
}

/** Lines of a file (a final newline does not start another line). */
export function lineCount(text: string): number {
  if (text === '') return 0;
  return text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
}
