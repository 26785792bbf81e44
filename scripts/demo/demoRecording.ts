// What the demo recorders (scripts/demo/record-demo*.ts) share: the project they record on, and the
// stable home their temp folder becomes in the committed files (docs/demo.md).

import * as fs from 'node:fs';
import * as path from 'node:path';
import { DEMO_PROJECT_FILES } from './demoScript';

/** What the recording's temp folder becomes in the committed files: a believable, stable home. */
export const PLACEHOLDER_HOME = '/home/dev';

/** Writes the demo project (relative path → text) into `dir`. */
export function writeProject(dir: string, files: Record<string, string> = DEMO_PROJECT_FILES): void {
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    fs.writeFileSync(path.join(dir, rel), text);
  }
}
