import { strict as assert } from 'node:assert';
import { MEMORIES_HEADING } from '../../src/core/startMemories';
import { INHERIT_HEADING } from '../../src/core/inherit';
import { TITLE_MAX_CHARS, titleFromPrompt, titleFromTurns } from '../../src/core/sessionTitle';

describe('session titles from the first prompt', () => {
  it('keeps a short prompt as it is, on one line', () => {
    assert.equal(titleFromPrompt('  Fix the   double charges\nin checkout  '), 'Fix the double charges in checkout');
  });

  it('cuts a long prompt at a word, within the limit, with an ellipsis', () => {
    const title = titleFromPrompt('Audit every retry path of the payment client and list where a charge could be sent twice to the provider')!;
    assert.ok(title.length <= TITLE_MAX_CHARS, title);
    assert.match(title, /^Audit every retry path of the payment client and list\b.*…$/);
    assert.doesNotMatch(title, / …$/);
  });

  it('cuts one long word mid-word rather than leaving nothing', () => {
    const title = titleFromPrompt('x'.repeat(200))!;
    assert.equal(title, `${'x'.repeat(TITLE_MAX_CHARS - 1)}…`);
  });

  it('drops harness markup and gives none for a prompt that is only markup or blank', () => {
    assert.equal(titleFromPrompt('<command-name>/clear</command-name>\n  Add a test  '), 'Add a test');
    assert.equal(titleFromPrompt('<system-reminder>\nnote\n</system-reminder>'), null);
    assert.equal(titleFromPrompt('   \n '), null);
  });

  it('names a sub-agent after its task, not after the block it inherited', () => {
    assert.equal(titleFromPrompt(`${INHERIT_HEADING}\n\nParent: x\n\n## Task\n\nFind every caller`), 'Find every caller');
    assert.equal(titleFromPrompt(`${INHERIT_HEADING}\n\nParent: x`), null);
  });

  it('names a child handed only the memories of earlier sessions after its task too', () => {
    assert.equal(titleFromPrompt(`${MEMORIES_HEADING}\n- [decision] keep ledger-v2 (2026-11-28)\n\n## Task\n\nCheck the refunds`), 'Check the refunds');
  });

  it('takes the first user turn that makes a title, never an assistant turn', () => {
    assert.equal(
      titleFromTurns([
        { role: 'assistant', text: 'Hello' },
        { role: 'user', text: '<system-reminder>x</system-reminder>' },
        { role: 'user', text: 'Write the migration' },
        { role: 'user', text: 'later' },
      ]),
      'Write the migration',
    );
    assert.equal(titleFromTurns([{ role: 'assistant', text: 'only me' }]), null);
  });
});
