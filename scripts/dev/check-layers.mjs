// Enforces the layering (docs/harnesses.md, "Layers"): src/core is pure (no vscode, no Node I/O,
// no sql.js), and so is each harness's transcript.ts (it may import src/core and
// each other only); nothing outside src/vscode (and extension.ts) imports vscode.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

// An optional argument names another tree to check (the tests use it on a tree with a violation).
const root = path.resolve(process.argv[2] ?? path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..'));
const FORBIDDEN_IN_CORE = [
  'vscode',
  'sql.js',
  'fs',
  'fs/promises',
  'path',
  'http',
  'https',
  'http2',
  'net',
  'tls',
  'dgram',
  'os',
  'child_process',
  'worker_threads',
  'cluster',
  'readline',
  'zlib',
  'crypto',
  'stream',
  'process',
  'dns',
];
const importRe = /(?:import\s[^'"]*?from\s*|import\s*\(\s*|import\s*|require\s*\(\s*|export\s[^'"]*?from\s*)['"]([^'"]+)['"]/g;

function files(dir) {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    return e.isDirectory() ? files(full) : full.endsWith('.ts') ? [full] : [];
  });
}

/** src/harnesses/<harness>/transcript.ts: the pure part of a harness. */
function isPureHarnessFile(rel) {
  const parts = rel.split(path.sep);
  return parts.length === 4 && parts[0] === 'src' && parts[1] === 'harnesses' && parts[3] === 'transcript.ts';
}

const problems = [];
for (const file of files(path.join(root, 'src'))) {
  const rel = path.relative(root, file);
  const text = fs.readFileSync(file, 'utf8');
  for (const m of text.matchAll(importRe)) {
    const spec = m[1].replace(/^node:/, '');
    const inCore = rel.startsWith(path.join('src', 'core') + path.sep);
    const pureHarnessFile = isPureHarnessFile(rel);
    const mayUseVscode = rel.startsWith(path.join('src', 'vscode') + path.sep) || rel === path.join('src', 'extension.ts');
    const target = path.resolve(path.dirname(file), spec);
    const forbidden = FORBIDDEN_IN_CORE.includes(spec) || FORBIDDEN_IN_CORE.includes(spec.split('/')[0]);
    if (inCore && (forbidden || (spec.startsWith('.') && !target.startsWith(path.join(root, 'src', 'core') + path.sep)))) {
      problems.push(`${rel}: src/core must stay pure but imports '${m[1]}'`);
    } else if (
      pureHarnessFile &&
      (forbidden ||
        (spec.startsWith('.') && !target.startsWith(path.join(root, 'src', 'core') + path.sep) && !isPureHarnessFile(path.relative(root, target) + '.ts')))
    ) {
      problems.push(`${rel}: a harness's transcript.ts must stay pure but import '${m[1]}'`);
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
