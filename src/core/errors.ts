// Errors that carry a stable code, so every front door (HTTP, CLI, VS Code) can map them.

export type ErrorCode =
  | 'invalid_request'
  | 'not_found'
  | 'conflict'
  | 'unauthorized'
  | 'forbidden'
  | 'unsupported_media_type'
  | 'payload_too_large'
  | 'locked'
  | 'unavailable'
  | 'internal';

export class BatonError extends Error {
  constructor(readonly code: ErrorCode, message: string) {
    super(message);
    this.name = 'BatonError';
  }
}

export function errorCode(err: unknown): ErrorCode {
  return err instanceof BatonError ? err.code : typeof (err as { code?: unknown })?.code === 'string' && isCode((err as { code: string }).code) ? ((err as { code: ErrorCode }).code) : 'internal';
}

function isCode(code: string): code is ErrorCode {
  return ['invalid_request', 'not_found', 'conflict', 'unauthorized', 'forbidden', 'unsupported_media_type', 'payload_too_large', 'locked', 'unavailable', 'internal'].includes(code);
}
