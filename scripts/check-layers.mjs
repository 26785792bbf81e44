// Enforces the layering of DESIGN.md: src/core is pure (no vscode, no Node I/O, no sql.js),
// and nothing outside src/vscode (and extension.ts) imports vscode.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

// An optional argument names another tree to check (the tests use it on a tree with a violation).
const root = path.resolve(process.argv[2] ?? path.join(path.dirname(fileURLToPath(import.meta.url)), '..'));
const FORBIDDEN_IN_CORE = [
  'vscode', 'sql.js', 'fs', 'fs/promises', 'path', 'http', 'https', 'http2', 'net', 'tls', 'dgram', 'os',
  'child_process', 'worker_threads', 'cluster', 'readline', 'zlib', 'crypto', 'stream', 'process', 'dns',
];
const importRe = /(?:import\s[^'"]*?from\s*|import\s*\(\s*|import\s*|require\s*\(\s*|export\s[^'"]*?from\s*)['"]([^'"]+)['"]/g;

function files(dir) {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    return e.isDirectory() ? files(full) : full.endsWith('.ts') ? [full] : [];
  });
}

const problems = [];
for (const file of files(path.join(root, 'src'))) {
  const rel = path.relative(root, file);
  const text = fs.readFileSync(file, 'utf8');
  for (const m of text.matchAll(importRe)) {
    const spec = m[1].replace(/^node:/, '');
    const inCore = rel.startsWith(path.join('src', 'core') + path.sep);
    const mayUseVscode = rel.startsWith(path.join('src', 'vscode') + path.sep) || rel === path.join('src', 'extension.ts');
    if (inCore && (FORBIDDEN_IN_CORE.includes(spec) || FORBIDDEN_IN_CORE.includes(spec.split('/')[0]) || (spec.startsWith('.') && !path.resolve(path.dirname(file), spec).startsWith(path.join(root, 'src', 'core') + path.sep)))) {
      problems.push(`${rel}: src/core must stay pure but imports '${m[1]}'`);
    } else if (spec === 'vscode' && !mayUseVscode) {
      problems.push(`${rel}: only src/vscode may import 'vscode'`);
    }
  }
}
if (problems.length) {
  console.error('Layering violations:\n  ' + problems.join('\n  '));
  process.exit(1);
}
console.log('layers ok');
