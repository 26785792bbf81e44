// docs/api.md is generated from the API contract: it must match what the contract says now.

import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import { API_DOC, renderApiDocs } from '../../scripts/dev/api-docs';
import { findRoute, ROUTES } from '../../src/api/routes';

describe('the API contract', () => {
  it('docs/api.md is up to date (npm run docs:api)', () => {
    assert.equal(fs.readFileSync(API_DOC, 'utf8'), renderApiDocs(), 'docs/api.md is stale: run npm run docs:api');
  });

  it('matches a path to its route whatever the order of the table: literal segments beat parameters', () => {
    assert.deepEqual(findRoute('GET', '/api/sessions/tree'), { id: 'sessionTree', params: {} });
    assert.deepEqual(findRoute('GET', '/api/sessions/summaries'), { id: 'summaries', params: {} });
    assert.deepEqual(findRoute('GET', '/api/sessions/tree2'), { id: 'getSession', params: { key: 'tree2' } });
    assert.deepEqual(findRoute('GET', '/api/sessions/session%3Aabc/transcript'), { id: 'transcript', params: { key: 'abc' } });
    assert.deepEqual(findRoute('POST', '/api/runs/deliver'), { id: 'deliverRuns', params: {} });
    assert.deepEqual(findRoute('GET', '/api/runs/deliver'), { id: 'getRun', params: { id: 'deliver' } });
    assert.deepEqual(findRoute('DELETE', '/api/sessions/x'), { id: null, methodMismatch: true });
    assert.deepEqual(findRoute('GET', '/nope'), { id: null, methodMismatch: false });
  });

  it('has no two routes with the same method and path', () => {
    const seen = new Set<string>();
    for (const r of Object.values(ROUTES)) {
      const k = `${r.method} ${r.path}`;
      assert.ok(!seen.has(k), `${k} twice`);
      seen.add(k);
    }
  });
});
