// A step that degrades instead of failing its route (degrade, never drop): its error is logged by
// class only (never a message that may quote a request) and the fallback stands in for its result.

import { errorClassOf } from '../core/errors';
import type { Logger } from '../core/logger';

export async function orElse<T>(logger: Logger, step: string, run: () => Promise<T>, fallback: T): Promise<T> {
  try {
    return await run();
  } catch (err) {
    logger.warn(`${step} failed: ${errorClassOf(err)}`);
    return fallback;
  }
}
