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
  | 'too_many_requests'
  /** The store is at its size limit (docs/storage.md): HTTP 507. */
  | 'insufficient_storage'
  | 'unavailable'
  | 'internal';

export class BatonError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'BatonError';
  }
}

export function errorCode(err: unknown): ErrorCode {
  return err instanceof BatonError
    ? err.code
    : typeof (err as { code?: unknown })?.code === 'string' && isCode((err as { code: string }).code)
      ? (err as { code: ErrorCode }).code
      : 'internal';
}

function isCode(code: string): code is ErrorCode {
  return [
    'invalid_request',
    'not_found',
    'conflict',
    'unauthorized',
    'forbidden',
    'unsupported_media_type',
    'payload_too_large',
    'locked',
    'too_many_requests',
    'insufficient_storage',
    'unavailable',
    'internal',
  ].includes(code);
}

/**
 * An error as a log line may name it: its class and, for system errors, its code (ECONNREFUSED).
 * Never its message: a parse error's message quotes its input, others echo what was sent.
 */
export function errorClassOf(err: unknown): string {
  if (!(err instanceof Error)) return typeof err;
  const code = (err as { code?: unknown }).code;
  const name = /^[A-Za-z][A-Za-z0-9_]{0,63}$/.test(err.name) ? err.name : 'Error';
  return typeof code === 'string' && /^[A-Z][A-Z0-9_]{0,63}$/.test(code) ? `${name} ${code}` : name;
}
