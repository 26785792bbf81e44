// `baton recall` and `baton remember`: the memories from a terminal (docs/memory.md, "The doors"),
// through the API's own routes (POST /api/memory/recall, POST /api/hooks/remember): the running
// server, else the store in-process, like every other command.

import { Command, InvalidArgumentError, Option } from 'commander';
import { resolveDataDir } from '../node/paths';
import { openAccess, type Access } from './access';

interface Helpers {
  dataDirOption(): Option;
  out(text: string): void;
}

/** A recall limit: the route's range, checked before anything is opened. */
function recallLimit(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 50) throw new InvalidArgumentError('expected a whole number from 1 to 50.');
  return n;
}

async function withAccess<T>(dataDir: string | undefined, mode: 'read' | 'write', fn: (access: Access) => Promise<T>): Promise<T> {
  const access = await openAccess(resolveDataDir({ flag: dataDir }), mode === 'read' ? { mode: 'read' } : { mode: 'write', holder: 'baton memory' });
  try {
    return await fn(access);
  } finally {
    await access.close();
  }
}

interface ShownMemory {
  id: string;
  content: string;
  type?: string | null;
  sessionKey?: string | null;
  createdAt?: string;
}

/** One memory per line: its type, its text on one line, then when and from which session. */
function memoryLine(m: ShownMemory): string {
  const where = [m.createdAt?.slice(0, 10), m.sessionKey].filter(Boolean).join(', ');
  return `- [${m.type ?? 'note'}] ${m.content.replace(/\s+/g, ' ').trim()}${where ? ` (${where})` : ''}`;
}

export function registerMemoryCommands(program: Command, { dataDirOption, out }: Helpers): void {
  program
    .command('recall')
    .description("recall memories, best first (the hooks' recall; with --session, each once per context epoch)")
    .argument('<query...>', 'words of the memories, their type or tags')
    .addOption(dataDirOption())
    .option('--session <key>', 'the session receiving them: memories its context already holds are left out, and these are noted in its ledger')
    .option('--project <path>', "only this project's memories")
    .option('--limit <n>', 'at most this many memories (1-50)', recallLimit, 10)
    .option('--json', 'machine-readable output')
    .action(async (words: string[], opts: { dataDir?: string; session?: string; project?: string; limit: number; json?: boolean }) => {
      const query = words.join(' ');
      // With a session the recall writes its ledger: that needs the store open for writing.
      await withAccess(opts.dataDir, opts.session ? 'write' : 'read', async ({ api }) => {
        const result = await api.call('memoryRecall', { body: { query, sessionKey: opts.session, project: opts.project, limit: opts.limit } });
        const memories = result.memories as ShownMemory[];
        if (opts.json)
          return out(
            JSON.stringify(
              { query, memories, count: result.count, ...(result.contextEpoch !== undefined ? { contextEpoch: result.contextEpoch } : {}) },
              null,
              2,
            ),
          );
        if (memories.length === 0) return out(`No memories match ${JSON.stringify(query)}.`);
        out(memories.map(memoryLine).join('\n'));
      });
    });

  program
    .command('remember')
    .description('keep a memory for later sessions and sub-agents')
    .argument('<text...>', 'the memory')
    .addOption(dataDirOption())
    .option('--session <key>', 'the session it came from')
    .option('--project <path>', 'the project it is about')
    .option('--type <type>', 'decision, constraint, preference, fact, open-question, or a type of your own')
    .option('--json', 'machine-readable output')
    .action(async (words: string[], opts: { dataDir?: string; session?: string; project?: string; type?: string; json?: boolean }) => {
      const content = words.join(' ');
      await withAccess(opts.dataDir, 'write', async ({ api }) => {
        const result = await api.call('remember', {
          body: { harness: 'cli', content, sessionKey: opts.session, project: opts.project, type: opts.type },
        });
        if (opts.json) return out(JSON.stringify(result, null, 2));
        out(result.success ? `remembered ${result.memoryId}` : `not remembered: session ${opts.session} is bypassed`);
      });
    });
}
