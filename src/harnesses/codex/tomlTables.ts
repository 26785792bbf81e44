// Line-level edits of standard tables (`[a.b."c"]`) in a TOML file such as Codex's config.toml,
// leaving every other line as the user (or Codex) wrote it. A table runs from its header to the
// next header; comment lines just before the next header belong to what follows (Codex may write
// its own tables between Baton's marker comments, and those must survive Baton's edits).

const BARE = /^[A-Za-z0-9_-]+$/;

/** The segments of a header's dotted key, or null when the line is not a standard table header. */
function headerPath(line: string): string[] | null {
  const m = /^\s*\[(?!\[)(.*)\]\s*(#.*)?$/.exec(line);
  if (!m) return null;
  const segments: string[] = [];
  let rest = m[1].trim();
  while (rest) {
    let seg: RegExpExecArray | null;
    if ((seg = /^"((?:[^"\\]|\\.)*)"/.exec(rest))) segments.push(JSON.parse(`"${seg[1]}"`) as string);
    else if ((seg = /^'([^']*)'/.exec(rest))) segments.push(seg[1]);
    else if ((seg = /^[A-Za-z0-9_-]+/.exec(rest))) segments.push(seg[0]);
    else return null;
    rest = rest.slice(seg[0].length).trim();
    if (!rest) break;
    if (!rest.startsWith('.')) return null;
    rest = rest.slice(1).trim();
  }
  return segments;
}

function isHeader(line: string): boolean {
  return /^\s*\[/.test(line);
}

/** `hooks.state."/x/hooks.json:stop:0:0"`: the header text for a path. */
export function tomlHeader(segments: readonly string[]): string {
  return `[${segments.map((s) => (BARE.test(s) ? s : JSON.stringify(s))).join('.')}]`;
}

const samePath = (a: readonly string[] | null, b: readonly string[]) => !!a && a.length === b.length && a.every((s, i) => s === b[i]);

/** [start, end) line range of each table with this path (a valid file has at most one). */
function tableRanges(lines: string[], segments: readonly string[]): Array<[number, number]> {
  const ranges: Array<[number, number]> = [];
  for (let i = 0; i < lines.length; i++) {
    if (!samePath(headerPath(lines[i]), segments)) continue;
    let end = i + 1;
    while (end < lines.length && !isHeader(lines[end])) end++;
    // Trailing comments and blank lines stay with what follows.
    let body = end;
    while (body > i + 1 && /^\s*(#.*)?$/.test(lines[body - 1])) body--;
    ranges.push([i, body]);
  }
  return ranges;
}

function tidy(text: string): string {
  return text.replace(/\n{3,}/g, '\n\n');
}

/** Removes the tables with these paths (header and key lines); the rest is kept as written. */
export function removeTomlTables(text: string, paths: ReadonlyArray<readonly string[]>): string {
  let lines = text.split('\n');
  let changed = false;
  for (const segments of paths) {
    for (const [start, end] of tableRanges(lines, segments).reverse()) {
      lines = [...lines.slice(0, start), ...lines.slice(end)];
      changed = true;
    }
  }
  if (!changed) return text;
  const out = tidy(lines.join('\n'));
  return out.trim() ? out.replace(/^\n+/, '') : '';
}

/** Sets `key = <literal>` in the table at this path (replacing the key's line), adding the table at the end when absent. */
export function setTomlTableValue(text: string, segments: readonly string[], key: string, literal: string): string {
  const lines = text.split('\n');
  const assignment = `${BARE.test(key) ? key : JSON.stringify(key)} = ${literal}`;
  const [range] = tableRanges(lines, segments);
  if (!range) {
    const base = text.trimEnd();
    return `${base}${base ? '\n\n' : ''}${tomlHeader(segments)}\n${assignment}\n`;
  }
  const [start, end] = range;
  const keyLine = new RegExp(`^\\s*(${key.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}|"${key}")\\s*=`);
  for (let i = start + 1; i < end; i++) {
    if (keyLine.test(lines[i])) {
      if (lines[i] === assignment) return text;
      lines[i] = assignment;
      return lines.join('\n');
    }
  }
  lines.splice(start + 1, 0, assignment);
  return lines.join('\n');
}
