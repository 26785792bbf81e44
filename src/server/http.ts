// HTTP plumbing: JSON replies, errors as {error, code}, and a body reader that enforces the
// content type, a size cap (413 without buffering the whole body), UTF-8, a nesting-depth limit
// and JSON validity. Error messages never quote the body (docs/security.md, "Request rules").

import type { IncomingMessage, ServerResponse } from 'node:http';
import { BatonError, type ErrorCode } from '../core/errors';
import { JsonInputError, parseJsonSafely } from '../core/safeJson';

const STATUS: Record<ErrorCode, number> = {
  invalid_request: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  locked: 423,
  too_many_requests: 429,
  internal: 500,
  unavailable: 503,
  insufficient_storage: 507,
};

export function statusOf(code: ErrorCode): number {
  return STATUS[code] ?? 500;
}

const BASE_HEADERS = {
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
};

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  if (res.headersSent || res.destroyed) return;
  const text = JSON.stringify(body);
  res.writeHead(status, { ...BASE_HEADERS, 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

export function sendError(res: ServerResponse, err: unknown): number {
  const code: ErrorCode = err instanceof BatonError ? err.code : 'internal';
  const status = statusOf(code);
  // Never a stack trace; internal errors say only that something failed.
  const message = err instanceof BatonError ? err.message : 'internal error';
  sendJson(res, status, { error: message, code });
  return status;
}

export interface BodyLimits {
  maxBytes: number;
}

/** Reads a JSON object body. Rejects before reading when Content-Length is over the cap. */
export async function readJsonBody(req: IncomingMessage, limits: BodyLimits): Promise<Record<string, unknown>> {
  const type = (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
  if (type !== 'application/json') {
    throw new BatonError('unsupported_media_type', `Content-Type must be application/json (got ${type || 'none'})`);
  }
  const declared = req.headers['content-length'] !== undefined ? Number(req.headers['content-length']) : undefined;
  if (declared !== undefined && declared > limits.maxBytes) {
    throw new BatonError('payload_too_large', `request body is ${declared} bytes; the limit is ${limits.maxBytes}`);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limits.maxBytes) throw new BatonError('payload_too_large', `request body exceeds the limit of ${limits.maxBytes} bytes`);
    chunks.push(chunk);
  }
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(Buffer.concat(chunks));
  } catch {
    throw new BatonError('invalid_request', 'request body is not valid UTF-8');
  }
  if (text.trim() === '') return {};
  let parsed: unknown;
  try {
    parsed = parseJsonSafely(text, 'request body');
  } catch (err) {
    throw new BatonError('invalid_request', err instanceof JsonInputError ? err.message : 'request body is not valid JSON');
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new BatonError('invalid_request', 'request body must be a JSON object');
  }
  return parsed as Record<string, unknown>;
}
