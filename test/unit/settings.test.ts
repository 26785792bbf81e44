import { strict as assert } from 'node:assert';
import { SETTING_DEFAULTS, validateSettings } from '../../src/core/settings';

describe('baton.* settings validation', () => {
  it('returns the defaults for empty settings, without errors', () => {
    assert.deepEqual(validateSettings({}), { settings: SETTING_DEFAULTS, errors: [] });
  });

  it('accepts valid values', () => {
    const { settings, errors } = validateSettings({
      dataDir: '/data/baton',
      port: 0,
      'inherit.tailChars': 500,
      'search.limit': 5,
      projectFilter: 'all',
      'subagents.enabled': true,
      'archival.enabled': true,
    });
    assert.deepEqual(errors, []);
    assert.equal(settings.dataDirSetting, '/data/baton');
    assert.equal(settings.port, 0);
    assert.equal(settings.tailChars, 500);
    assert.equal(settings.projectFilter, 'all');
    assert.equal(settings.archival.enabled, true);
  });

  it('names the setting, the problem and the fallback for each invalid value', () => {
    const { settings, errors } = validateSettings({
      dataDir: 'relative/dir',
      port: 70000,
      'inherit.tailChars': -1,
      'inherit.enabled': 'yes',
      projectFilter: 'mine',
      'search.limit': 1.5,
    });
    assert.equal(errors.length, 6);
    assert.match(errors[0], /^baton\.dataDir must be an absolute path/);
    assert.ok(errors.some((e) => /^baton\.port must be a whole number from 0 to 65535 \(got 70000\)/.test(e)));
    assert.ok(errors.some((e) => /^baton\.inherit\.tailChars .*using 3000\.$/.test(e)));
    assert.ok(errors.some((e) => /^baton\.inherit\.enabled must be true or false/.test(e)));
    assert.ok(errors.some((e) => /^baton\.projectFilter must be "workspace" or "all"/.test(e)));
    assert.equal(settings.port, null);
    assert.equal(settings.tailChars, 3000);
    assert.equal(settings.dataDirSetting, '');
  });

  it('reports archival without sub-agents as a configuration error and keeps archival off', () => {
    const { settings, errors } = validateSettings({ 'archival.enabled': true });
    assert.equal(settings.archival.enabled, false);
    assert.equal(errors.length, 1);
    assert.match(errors[0], /baton\.archival\.enabled needs baton\.subagents\.enabled/);
  });

  it('reads the inherit profile settings: a default profile, agent types → profiles, and the budgets of digest and routing', () => {
    const { settings, errors } = validateSettings({
      'inherit.defaultProfile': 'digest',
      'inherit.agentTypeProfiles': { 'code-reviewer': 'routing', Plan: 'full' },
      'inherit.profileMaxTokens': { digest: 900, routing: 300 },
    });
    assert.deepEqual(errors, []);
    assert.deepEqual(settings.inheritProfiles, {
      defaultProfile: 'digest',
      byAgentType: { 'code-reviewer': 'routing', Plan: 'full' },
      maxTokens: { digest: 900, routing: 300 },
    });
  });

  it('drops each bad inherit profile entry with a readable message and keeps the good ones', () => {
    const { settings, errors } = validateSettings({
      'inherit.defaultProfile': 'everything',
      'inherit.agentTypeProfiles': { reviewer: 'digest', planner: 'most', '': 'none' },
      'inherit.profileMaxTokens': { digest: 50, routing: 500, full: 4000 },
    });
    assert.deepEqual(settings.inheritProfiles, { defaultProfile: 'full', byAgentType: { reviewer: 'digest' }, maxTokens: { routing: 500 } });
    assert.deepEqual(errors, [
      'baton.inherit.defaultProfile must be one of "full", "digest", "routing", "fork", "none" (got "everything"); using "full".',
      'baton.inherit.agentTypeProfiles: "planner" must map to one of "full", "digest", "routing", "fork", "none" (got "most"); that entry is ignored.',
      'baton.inherit.agentTypeProfiles: an agent type must have 1 to 128 characters (got ""); that entry is ignored.',
      'baton.inherit.profileMaxTokens: "digest" must be a whole number from 100 to 200000 (got 50); that entry is ignored.',
      'baton.inherit.profileMaxTokens: "full" has no budget of its own (only "digest", "routing" and "fork" have; "full" uses baton.inherit.maxTokens, "none" inherits nothing); that entry is ignored.',
    ]);
    const notObjects = validateSettings({ 'inherit.agentTypeProfiles': ['Explore'], 'inherit.profileMaxTokens': 1200 });
    assert.equal(notObjects.errors.length, 2);
    assert.match(notObjects.errors[0], /^baton\.inherit\.agentTypeProfiles must be an object of agent type → profile/);
    assert.match(notObjects.errors[1], /^baton\.inherit\.profileMaxTokens must be an object of profile → tokens/);
  });

  it('reads baton.subagents.defaultTools as a list of tool names, and a bad value grants nothing with a readable message', () => {
    const good = validateSettings({ 'subagents.defaultTools': ['baton_search_sessions', 'baton_search_sessions', 'other_readFile'] });
    assert.deepEqual(good.errors, []);
    assert.deepEqual(good.settings.subagentDefaultTools, ['baton_search_sessions', 'other_readFile']);
    assert.deepEqual(SETTING_DEFAULTS.subagentDefaultTools, []);
    const bad = validateSettings({ 'subagents.defaultTools': 'read-only' });
    assert.deepEqual(bad.settings.subagentDefaultTools, []);
    assert.deepEqual(bad.errors, [
      'baton.subagents.defaultTools must be a list of tool names (got "read-only"); sub-agents spawned without a grant get no tools.',
    ]);
  });
});

describe('baton.memory.sessionStart.* settings', () => {
  it('default to on with 600 tokens, read valid values and name a bad one with its fallback', () => {
    assert.equal(SETTING_DEFAULTS.startMemories, true);
    assert.equal(SETTING_DEFAULTS.startMemoriesMaxTokens, 600);
    const ok = validateSettings({ 'memory.sessionStart.enabled': false, 'memory.sessionStart.maxTokens': 300 });
    assert.deepEqual(ok.errors, []);
    assert.equal(ok.settings.startMemories, false);
    assert.equal(ok.settings.startMemoriesMaxTokens, 300);
    const bad = validateSettings({ 'memory.sessionStart.enabled': 'no', 'memory.sessionStart.maxTokens': 10 });
    assert.equal(bad.settings.startMemories, true);
    assert.equal(bad.settings.startMemoriesMaxTokens, 600);
    assert.ok(bad.errors.some((e) => /^baton\.memory\.sessionStart\.enabled must be true or false/.test(e)));
    assert.ok(bad.errors.some((e) => /^baton\.memory\.sessionStart\.maxTokens must be a whole number from 50 to 20000 .*using 600\.$/.test(e)));
  });
});
