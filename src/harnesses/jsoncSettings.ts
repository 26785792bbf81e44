// Reading and changing one top-level property of an editor's settings.json (VS Code's), which is
// JSONC: comments and trailing commas are allowed, and the user's comments and layout must survive
// an install. Only the changed property's value is rewritten; everything else is left byte for byte.

import * as fs from 'node:fs';
import * as path from 'node:path';
import { BatonError } from '../core/errors';
import type { HostSettingChange } from './harness';

interface PropertySpan {
  key: string;
  /** Where the property starts (its key's opening quote) and where its value ends. */
  start: number;
  valueStart: number;
  valueEnd: number;
}

interface Scan {
  /** The top-level object's braces. */
  open: number;
  close: number;
  properties: PropertySpan[];
}

/** Index after the whitespace and comments starting at `i`. */
function skipTrivia(text: string, i: number): number {
  for (;;) {
    while (i < text.length && /\s/.test(text[i])) i++;
    if (text.startsWith('//', i)) {
      const end = text.indexOf('\n', i);
      i = end < 0 ? text.length : end + 1;
    } else if (text.startsWith('/*', i)) {
      const end = text.indexOf('*/', i + 2);
      i = end < 0 ? text.length : end + 2;
    } else return i;
  }
}

/** Index after the string starting at `i` (a quote). */
function skipString(text: string, i: number): number {
  for (let j = i + 1; j < text.length; j++) {
    if (text[j] === '\\') j++;
    else if (text[j] === '"') return j + 1;
  }
  throw new Error('unterminated string');
}

/** Index after the value starting at `i`: a string, or anything up to the `,` or `}` that ends it at this depth. */
function skipValue(text: string, i: number): number {
  if (text[i] === '"') return skipString(text, i);
  let depth = 0;
  let j = i;
  while (j < text.length) {
    j = skipTrivia(text, j);
    const c = text[j];
    if (c === '"') {
      j = skipString(text, j);
      continue;
    }
    if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') {
      if (depth === 0) break;
      depth--;
      if (depth === 0) return j + 1;
    } else if (c === ',' && depth === 0) break;
    j++;
  }
  let end = j;
  while (end > i && /\s/.test(text[end - 1])) end--;
  return end;
}

function scan(text: string, file: string): Scan {
  const bad = (why: string) => new BatonError('invalid_request', `${file} is not a settings object (${why}); fix it before installing`);
  try {
    const open = skipTrivia(text, 0);
    if (text[open] !== '{') throw bad('it does not start with {');
    const properties: PropertySpan[] = [];
    let i = skipTrivia(text, open + 1);
    while (text[i] !== '}') {
      if (text[i] !== '"') throw bad(`unexpected ${JSON.stringify(text[i] ?? 'end of file')}`);
      const keyEnd = skipString(text, i);
      const key = JSON.parse(text.slice(i, keyEnd)) as string;
      const colon = skipTrivia(text, keyEnd);
      if (text[colon] !== ':') throw bad(`no : after ${JSON.stringify(key)}`);
      const valueStart = skipTrivia(text, colon + 1);
      const valueEnd = skipValue(text, valueStart);
      properties.push({ key, start: i, valueStart, valueEnd });
      i = skipTrivia(text, valueEnd);
      if (text[i] === ',') i = skipTrivia(text, i + 1);
      else if (text[i] !== '}') throw bad(`unexpected ${JSON.stringify(text[i] ?? 'end of file')} after ${JSON.stringify(key)}`);
    }
    return { open, close: i, properties };
  } catch (err) {
    if (err instanceof BatonError) throw err;
    throw bad((err as Error).message);
  }
}

/** JSONC text as plain JSON: comments and trailing commas removed (strings untouched). */
function toJson(text: string): string {
  let out = '';
  for (let i = 0; i < text.length;) {
    const c = text[i];
    if (c === '"') {
      const end = skipString(text, i);
      out += text.slice(i, end);
      i = end;
    } else if (text.startsWith('//', i) || text.startsWith('/*', i)) {
      i = skipTrivia(text, i);
      out += ' ';
    } else if (c === ',') {
      const next = skipTrivia(text, i + 1);
      if (text[next] !== '}' && text[next] !== ']') out += c;
      i++;
    } else {
      out += c;
      i++;
    }
  }
  return out;
}

/** One top-level setting's value (undefined when absent). */
export function readSetting(text: string, key: string, file = 'settings.json'): unknown {
  if (!text.trim()) return undefined;
  const span = scan(text, file).properties.find((p) => p.key === key);
  if (!span) return undefined;
  try {
    return JSON.parse(toJson(text.slice(span.valueStart, span.valueEnd))) as unknown;
  } catch (err) {
    throw new BatonError('invalid_request', `${file}: ${key} is not valid JSON (${(err as Error).message}); fix it before installing`);
  }
}

function indentOf(text: string, at: number): string {
  const lineStart = text.lastIndexOf('\n', at - 1) + 1;
  return /^[ \t]*/.exec(text.slice(lineStart))![0];
}

/** The text with one top-level setting set (`value` undefined: removed); the rest of the file unchanged. */
export function writeSetting(text: string, key: string, value: unknown, file = 'settings.json'): string {
  if (!text.trim()) return value === undefined ? text : JSON.stringify({ [key]: value }, null, 4) + '\n';
  const s = scan(text, file);
  const span = s.properties.find((p) => p.key === key);
  const indent = span ? indentOf(text, span.start) : s.properties.length ? indentOf(text, s.properties[0].start) : '    ';
  const rendered = (v: unknown) => JSON.stringify(v, null, 4).replace(/\n/g, '\n' + indent);
  if (span && value !== undefined) return text.slice(0, span.valueStart) + rendered(value) + text.slice(span.valueEnd);
  if (span) {
    // Removed with its comma, so that removing what an insert added gives back the text before it.
    const after = skipTrivia(text, span.valueEnd);
    if (text[after] === ',') {
      let from = span.start;
      while (from > s.open + 1 && /\s/.test(text[from - 1])) from--;
      return text.slice(0, from) + text.slice(after + 1);
    }
    const index = s.properties.indexOf(span);
    if (index === 0) return text.slice(0, s.open + 1) + text.slice(span.valueEnd);
    const comma = text.indexOf(',', s.properties[index - 1].valueEnd);
    return text.slice(0, comma) + text.slice(span.valueEnd);
  }
  if (value === undefined) return text;
  const entry = `${JSON.stringify(key)}: ${rendered(value)}`;
  const last = s.properties.at(-1);
  if (!last) return text.slice(0, s.open + 1) + `\n${indent}${entry}\n` + text.slice(s.close);
  const afterLast = skipTrivia(text, last.valueEnd);
  if (text[afterLast] === ',') return text.slice(0, afterLast + 1) + `\n${indent}${entry},` + text.slice(afterLast + 1);
  return text.slice(0, last.valueEnd) + `,\n${indent}${entry}` + text.slice(last.valueEnd);
}

/** Changes one setting of a settings.json file (created when missing); true when the file changed. A one-time backup is kept. */
export function editSettingsFile(file: string, change: HostSettingChange): boolean {
  const text = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
  const before = readSetting(text, change.key, file);
  const after = change.apply(before);
  if (JSON.stringify(after) === JSON.stringify(before)) return false;
  const next = writeSetting(text, change.key, after, file);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const backup = `${file}.baton-backup`;
  if (text && !fs.existsSync(backup)) fs.copyFileSync(file, backup);
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, next, { mode: fs.existsSync(file) ? fs.statSync(file).mode & 0o777 : 0o644 });
  fs.renameSync(tmp, file);
  return true;
}
