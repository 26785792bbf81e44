// Removes obvious secrets from text that leaves the store (inherited blocks, search excerpts).
// Deliberately narrow: API keys with known shapes, bearer tokens, private key blocks, passwords in
// URLs and `password=`-style assignments. Commit hashes, UUIDs and paths are left alone.

export const REDACTED = '[REDACTED]';

const RULES: Array<[RegExp, string | ((...m: string[]) => string)]> = [
  // PEM private keys, whole block (also a block cut off by a budget: BEGIN without END).
  [
    /-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z0-9 ]*PRIVATE KEY-----|$)/g,
    `-----BEGIN PRIVATE KEY----- ${REDACTED} -----END PRIVATE KEY-----`,
  ],
  // Provider keys with recognisable prefixes.
  [/\bsk-(?:ant-|proj-|live-|test-)?[A-Za-z0-9_-]{16,}/g, REDACTED],
  [/\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{30,}\b/g, REDACTED],
  [/\bgithub_pat_[A-Za-z0-9_]{30,}\b/g, REDACTED],
  [/\bglpat-[A-Za-z0-9_-]{20,}\b/g, REDACTED],
  [/\bxox[abprs]-[A-Za-z0-9-]{10,}\b/g, REDACTED],
  [/\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g, REDACTED],
  [/\bAIza[0-9A-Za-z_-]{35}\b/g, REDACTED],
  [/\bnpm_[A-Za-z0-9]{36}\b/g, REDACTED],
  // JSON Web Tokens.
  [/\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g, REDACTED],
  // Authorization headers and bearer tokens.
  [/\b(Bearer|Basic|Token)\s+[A-Za-z0-9._~+/=-]{12,}/gi, (_m, scheme) => `${scheme} ${REDACTED}`],
  // user:password@ in URLs.
  [/\b([a-z][a-z0-9+.-]*:\/\/[^\s:/@]+):([^\s@/]+)@/gi, (_m, head) => `${head}:${REDACTED}@`],
  // password = "...", "api_key": "...", SECRET_TOKEN=...
  [
    /\b([A-Za-z0-9_.-]*(?:password|passwd|pwd|secret|token|api[_-]?key|access[_-]?key|private[_-]?key|client[_-]?secret)[A-Za-z0-9_.-]*)(["']?\s*[:=]\s*)(["']?)([^\s"',;}{]{4,})\3/gi,
    (_m, name, sep, quote) => `${name}${sep}${quote}${REDACTED}${quote}`,
  ],
];

export function redactSecrets(text: string): string {
  let out = text;
  for (const [pattern, replacement] of RULES) out = out.replace(pattern, replacement as never);
  return out;
}
