// The grant of tools to a spawned language-model sub-agent (docs/runs.md, "Tools of a sub-agent"):
// deny by default, presets and lists, only what the caller may use, Restricted Mode, the spawn
// tool never passed on, and every refusal reported.

import { strict as assert } from 'node:assert';
import {
  describeToolGrant,
  parseToolGrantRequest,
  READ_ONLY_TOOLS,
  resolveToolGrant,
  SPAWN_TOOL,
  ToolGrantInputError,
  type ToolGrantContext,
} from '../../src/core/subagentTools';
import { toolsOf } from '../../src/server/toolCatalogue';

/** What vscode.lm.tools lists in a window with Baton and one other extension's tools. */
const AVAILABLE = [...toolsOf('lm').map((t) => t.face.name), 'other_readFile', 'other_runInTerminal'];
const trusted: ToolGrantContext = { available: AVAILABLE, defaultGrant: [], trusted: true };

describe('sub-agent tool grants', () => {
  it('grants nothing when neither the spawn nor the setting asks, and says nothing about it', () => {
    const grant = resolveToolGrant(parseToolGrantRequest({}), trusted);
    assert.deepEqual(grant, { source: 'none', requested: [], granted: [], refused: [] });
    assert.equal(describeToolGrant(grant), '');
    const none = resolveToolGrant(parseToolGrantRequest({ toolPreset: 'none' }), { ...trusted, defaultGrant: ['other_readFile'] });
    assert.deepEqual(none.granted, [], 'an explicit "none" overrides the setting');
    assert.equal(describeToolGrant(none), 'Tools granted to the sub-agent: none.');
  });

  it("the read-only preset is Baton's own read tools, each a language-model tool of the catalogue", () => {
    const lmNames = toolsOf('lm').map((t) => t.face.name);
    for (const name of READ_ONLY_TOOLS) assert.ok(lmNames.includes(name), name);
    assert.ok(!(READ_ONLY_TOOLS as readonly string[]).includes(SPAWN_TOOL));
    const grant = resolveToolGrant(parseToolGrantRequest({ toolPreset: 'read-only' }), trusted);
    assert.deepEqual(grant.granted, ['baton_search_sessions', 'baton_get_inherited_context', 'baton_get_run_status']);
    assert.deepEqual(grant.refused, []);
  });

  it('a preset and a list combine, each name once; only tools the caller has are granted', () => {
    const grant = resolveToolGrant(parseToolGrantRequest({ toolPreset: 'read-only', tools: ['other_readFile', 'baton_search_sessions', 'nowhere_tool'] }), {
      ...trusted,
      available: AVAILABLE.filter((t) => t !== 'baton_get_run_status'),
    });
    assert.deepEqual(grant.requested, ['baton_search_sessions', 'baton_get_inherited_context', 'baton_get_run_status', 'other_readFile', 'nowhere_tool']);
    assert.deepEqual(grant.granted, ['baton_search_sessions', 'baton_get_inherited_context', 'other_readFile']);
    assert.deepEqual(
      grant.refused.map((r) => r.tool),
      ['baton_get_run_status', 'nowhere_tool'],
    );
    assert.match(grant.refused[1].reason, /not in vscode\.lm\.tools/);
  });

  it('never passes on the spawn tool, even when the caller has it and names it', () => {
    assert.ok(AVAILABLE.includes(SPAWN_TOOL));
    const grant = resolveToolGrant(parseToolGrantRequest({ tools: [SPAWN_TOOL, 'other_readFile'] }), trusted);
    assert.deepEqual(grant.granted, ['other_readFile']);
    assert.deepEqual(grant.refused, [{ tool: SPAWN_TOOL, reason: 'a sub-agent cannot spawn sub-agents (that could recurse without bound)' }]);
    const fromSetting = resolveToolGrant({}, { ...trusted, defaultGrant: [SPAWN_TOOL] });
    assert.deepEqual(fromSetting.granted, [], 'not through the setting either');
  });

  it('the setting is the grant when the spawn names none, held to the same rules', () => {
    const grant = resolveToolGrant(parseToolGrantRequest({}), { ...trusted, defaultGrant: ['other_readFile', 'gone_tool'] });
    assert.equal(grant.source, 'setting');
    assert.deepEqual(grant.granted, ['other_readFile']);
    assert.equal(
      describeToolGrant(grant),
      'Tools granted to the sub-agent (from baton.subagents.defaultTools): other_readFile.\nRefused: gone_tool (no such tool is available here (not in vscode.lm.tools)).',
    );
  });

  it("in Restricted Mode only Baton's read tools and the setting's tools can be granted", () => {
    const restricted: ToolGrantContext = { available: AVAILABLE, defaultGrant: ['other_readFile'], trusted: false };
    const grant = resolveToolGrant(
      parseToolGrantRequest({ toolPreset: 'read-only', tools: ['other_readFile', 'other_runInTerminal', 'baton_query_subagent'] }),
      restricted,
    );
    assert.deepEqual(grant.granted, ['baton_search_sessions', 'baton_get_inherited_context', 'baton_get_run_status', 'other_readFile']);
    assert.deepEqual(
      grant.refused.map((r) => r.tool),
      ['other_runInTerminal', 'baton_query_subagent'],
    );
    for (const r of grant.refused) assert.match(r.reason, /^Restricted Mode: /);
    // The same names in a trusted workspace are all granted.
    assert.deepEqual(resolveToolGrant(parseToolGrantRequest({ tools: ['other_runInTerminal', 'baton_query_subagent'] }), trusted).refused, []);
  });

  it('refuses unreadable input with a message saying what to pass', () => {
    const bad: Array<[object, RegExp]> = [
      [{ toolPreset: 'everything' }, /^"toolPreset" must be one of none, read-only \(got "everything"\)\.$/],
      [{ toolPreset: 3 }, /^"toolPreset" must be one of/],
      [{ tools: 'baton_search_sessions' }, /^"tools" must be a list of at most 64 tool names/],
      [{ tools: ['ok', ''] }, /^"tools" must be a list/],
      [{ tools: [1] }, /^"tools" must be a list/],
      [{ tools: ['x'.repeat(129)] }, /^"tools" must be a list/],
      [{ tools: Array.from({ length: 65 }, (_, i) => `t${i}`) }, /^"tools" must be a list/],
    ];
    for (const [input, message] of bad)
      assert.throws(
        () => parseToolGrantRequest(input),
        (err: Error) => err instanceof ToolGrantInputError && message.test(err.message),
      );
    assert.deepEqual(parseToolGrantRequest({ tools: [' other_readFile '], toolPreset: null }), { tools: ['other_readFile'] });
  });
});
