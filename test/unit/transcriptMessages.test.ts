// Errors crossing from the transcript reader thread to the main thread (src/server/transcriptMessages.ts):
// what the caller is told is the same as when the read ran on the main thread. A BatonError keeps its
// code and message; anything else reaches the HTTP layer as a plain error, answered "internal error",
// (server/http.ts sendError), so no message of a file or a parser gets out.

import { strict as assert } from 'node:assert';
import { BatonError } from '../../src/core/errors';
import { crossError, uncrossError } from '../../src/server/transcriptMessages';

describe('errors from the transcript reader thread', () => {
  it('a BatonError keeps its code and message; anything else is answered "internal error", its message left behind', () => {
    const refused = uncrossError(structuredClone(crossError(new BatonError('invalid_request', 'transcriptPath is not a regular file'))));
    assert.ok(refused instanceof BatonError);
    assert.equal(refused.code, 'invalid_request');
    assert.equal(refused.message, 'transcriptPath is not a regular file');

    const crossed = structuredClone(crossError(new TypeError('Unexpected token in {"secret":"FILE-TEXT-4417"}')));
    assert.doesNotMatch(JSON.stringify(crossed), /FILE-TEXT-4417/);
    const unexpected = uncrossError(crossed);
    assert.ok(!(unexpected instanceof BatonError), 'answered as an internal error, whose message the caller never sees');
    assert.doesNotMatch(unexpected.message, /FILE-TEXT-4417/);
    assert.match(unexpected.message, /TypeError/, 'the class is kept for the server log');
  });
});
