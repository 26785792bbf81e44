import { strict as assert } from 'node:assert';
import { age, renderMarkdownSession, renderSessionTable, renderTree, sessionLine, type TreeLike } from '../../src/core/format';
import type { SessionRecord } from '../../src/core/session';

const NOW = Date.parse('2026-03-01T12:00:00.000Z');
const ago = (ms: number) => new Date(NOW - ms).toISOString();

function session(key: string, over: Partial<SessionRecord> = {}): SessionRecord {
  return {
    key,
    agentId: 'main',
    harness: 'claude-code',
    project: null,
    parentSessionKey: null,
    lineageSource: null,
    harnessAgentId: null,
    harnessAgentType: null,
    task: null,
    executionMode: null,
    status: 'active',
    runtimePath: null,
    claimedAt: null,
    bypassed: false,
    title: null,
    createdAt: '2026-03-01T10:00:00.000Z',
    updatedAt: ago(5 * 60_000),
    endedAt: null,
    endReason: null,
    turnCount: 3,
    charCount: 120,
    childCount: 0,
    spend: { own: null, total: null },
    ...over,
  };
}

const node = (s: SessionRecord, children: TreeLike[] = []): TreeLike => ({ ...s, children });

describe('age', () => {
  const cases: Array<[number, string]> = [
    [0, '0s'],
    [1_000, '1s'],
    [59_000, '59s'],
    [59_499, '59s'],
    [59_500, '1m'], // rounds to 60 s
    [60_000, '1m'],
    [119_000, '1m'],
    [120_000, '2m'],
    [3_599_000, '59m'],
    [3_600_000, '1h'],
    [7_199_000, '1h'],
    [86_399_000, '23h'],
    [86_400_000, '1d'],
    [30 * 86_400_000, '30d'],
    [400 * 86_400_000, '400d'],
  ];
  for (const [ms, want] of cases) {
    it(`${ms} ms ago is ${want}`, () => {
      assert.equal(age(ago(ms), NOW), want);
    });
  }

  it('a time in the future is 0s', () => {
    assert.equal(age(new Date(NOW + 3_600_000).toISOString(), NOW), '0s');
  });

  it('accepts ISO times with an offset', () => {
    assert.equal(age('2026-03-01T13:00:00+02:00', NOW), '1h');
  });

  it('defaults now to the current time', () => {
    assert.equal(age(new Date(Date.now() - 2 * 3_600_000).toISOString()), '2h');
  });
});

describe('sessionLine / renderSessionTable', () => {
  it('lays out key, harness, flags, turns, age and project', () => {
    const s = session('abc123', { harnessAgentType: 'Explore', bypassed: true, status: 'completed', turnCount: 12, project: '/home/dev/proj' });
    assert.equal(sessionLine(s, NOW), 'abc123  claude-code Explore  completed,bypassed  12 turns  5m ago  /home/dev/proj');
  });

  it('omits the agent type and project when absent', () => {
    assert.equal(sessionLine(session('k'), NOW), 'k  claude-code  active  3 turns  5m ago');
  });

  it("shows a session's tokens and cost with its sub-agents', estimated marked ~, and nothing when none was reported", () => {
    const total = {
      models: ['claude-sonnet-4-5'],
      requests: 3,
      inputTokens: 1200,
      outputTokens: 300,
      cacheReadTokens: 10_000,
      cacheWriteTokens: 0,
      costUsd: 0.0123,
      costBasis: 'estimated' as const,
      costComplete: true,
      byModel: [],
    };
    assert.equal(sessionLine(session('k', { spend: { own: null, total } }), NOW), 'k  claude-code  active  3 turns  12k tokens $0.01~  5m ago');
    const unpriced = { ...total, costUsd: null, costBasis: null };
    assert.equal(sessionLine(session('k', { spend: { own: null, total: unpriced } }), NOW), 'k  claude-code  active  3 turns  12k tokens  5m ago');
    assert.equal(sessionLine(session('k', { spend: { own: null, total: null } }), NOW), 'k  claude-code  active  3 turns  5m ago');
  });

  it('renders one line per session', () => {
    const table = renderSessionTable([session('a'), session('b', { updatedAt: ago(2 * 86_400_000) })], NOW);
    assert.deepEqual(table.split('\n'), ['a  claude-code  active  3 turns  5m ago', 'b  claude-code  active  3 turns  2d ago']);
    assert.equal(renderSessionTable([], NOW), '');
  });
});

describe('renderTree', () => {
  const line = (key: string) => sessionLine(session(key), NOW);

  it('draws a 3-level tree with box-drawing prefixes', () => {
    const tree = node(session('root'), [
      node(session('a'), [node(session('a1')), node(session('a2'), [node(session('a2x'))])]),
      node(session('b'), [node(session('b1'))]),
    ]);
    const lines = renderTree([tree], NOW).split('\n');
    assert.deepEqual(lines, [
      line('root'),
      '├─ ' + line('a'),
      '│  ├─ ' + line('a1'),
      '│  └─ ' + line('a2'),
      '│     └─ ' + line('a2x'),
      '└─ ' + line('b'),
      '   └─ ' + line('b1'),
    ]);
  });

  it('puts a vertical bar under a non-last child and spaces under the last one', () => {
    const tree = node(session('r'), [node(session('x'), [node(session('x1'))]), node(session('y'), [node(session('y1'))])]);
    const lines = renderTree([tree], NOW).split('\n');
    assert.equal(lines[2], '│  └─ ' + line('x1'));
    assert.equal(lines[4], '   └─ ' + line('y1'));
  });

  it('renders several roots without prefixes, each followed by its subtree', () => {
    const out = renderTree([node(session('r1'), [node(session('c1'))]), node(session('r2'))], NOW);
    assert.deepEqual(out.split('\n'), [line('r1'), '└─ ' + line('c1'), line('r2')]);
  });

  it('renders an empty forest as an empty string', () => {
    assert.equal(renderTree([], NOW), '');
  });
});

describe('renderMarkdownSession', () => {
  const full = session('s-1', {
    agentId: 'main',
    harness: 'codex',
    project: '/home/dev/proj',
    parentSessionKey: 'parent-9',
    status: 'completed',
    createdAt: '2026-03-01T10:00:00.000Z',
    updatedAt: '2026-03-01T11:00:00.000Z',
  });

  it('renders the header and every turn with its role title and time', () => {
    const md = renderMarkdownSession(full, [
      { role: 'user', text: 'fix the bug', at: '2026-03-01T10:00:01.000Z' },
      { role: 'assistant', text: 'done', at: null },
      { role: 'tool', text: '$ ls', at: null },
      { role: 'system', text: 'ctx', at: null },
    ]);
    assert.equal(
      md,
      [
        '# Session s-1',
        '',
        '- Harness: codex',
        '- Agent: main',
        '- Project: /home/dev/proj',
        '- Parent: parent-9',
        '- Status: completed',
        '- Created: 2026-03-01T10:00:00.000Z',
        '- Updated: 2026-03-01T11:00:00.000Z',
        '',
        '## User · 2026-03-01T10:00:01.000Z\n\nfix the bug\n',
        '## Assistant\n\ndone\n',
        '## Tool\n\n$ ls\n',
        '## System\n\nctx\n',
      ].join('\n'),
    );
  });

  it('uses an unknown role as its own title', () => {
    const md = renderMarkdownSession(full, [{ role: 'narrator', text: 'meanwhile', at: null }]);
    assert.ok(md.endsWith('\n## narrator\n\nmeanwhile\n'), md);
  });

  it('with no turns renders only the header', () => {
    const md = renderMarkdownSession(full, []);
    assert.equal(md.split('\n')[0], '# Session s-1');
    assert.ok(md.endsWith('- Updated: 2026-03-01T11:00:00.000Z\n'), JSON.stringify(md));
    assert.ok(!md.includes('##'));
  });

  it('omits the project and parent lines when absent', () => {
    const md = renderMarkdownSession(session('s-2', { createdAt: 'C', updatedAt: 'U' }), []);
    assert.ok(!md.includes('Project'));
    assert.ok(!md.includes('Parent'));
    assert.deepEqual(
      md.split('\n').filter((l) => l !== ''),
      ['# Session s-2', '- Harness: claude-code', '- Agent: main', '- Status: active', '- Created: C', '- Updated: U'],
    );
  });

  // An omitted Project line must not leave a blank line inside the metadata list (a filter that
  // compared with the unfiltered array once produced "- Agent: main\n\n- Status: ...").
  it('leaves no blank line inside the metadata list when project and parent are absent', () => {
    const md = renderMarkdownSession(session('s-2', { createdAt: 'C', updatedAt: 'U' }), []);
    assert.equal(md, '# Session s-2\n\n- Harness: claude-code\n- Agent: main\n- Status: active\n- Created: C\n- Updated: U\n');
  });
});
