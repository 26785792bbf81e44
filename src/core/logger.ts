// One logger for every layer: the VS Code extension passes its LogOutputChannel (which has these
// methods), `baton serve` a line logger on stderr, tests a line collector. What is logged is built
// from safe parts only (routes, statuses, durations, error classes, file names and counts): never
// payload text, tokens, request targets or query strings (docs/security.md, "What the logs record").

export interface Logger {
  trace(message: string): void;
  debug(message: string): void;
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

export type LogLevel = keyof Logger;

/** A logger that writes each message as one line, whatever its level (stderr, a test's list). */
export function lineLogger(write: (line: string) => void): Logger {
  const line = (message: string) => write(message);
  return { trace: line, debug: line, info: line, warn: line, error: line };
}

export const silentLogger: Logger = lineLogger(() => undefined);
