// Opening the store from a CLI command: whatever recovery found and did is printed on stderr, one
// line each (file names and numbers only), so damage never passes unseen (docs/storage.md).

import type { Store } from '../store/store';

export function printRecoveryLine(message: string): void {
  process.stderr.write(`recovery: ${message}\n`);
}

export function printRecovery(store: Store): void {
  for (const event of store.report.events) printRecoveryLine(event.message);
  // A store near or at its size limit says so at every start (docs/storage.md, "How big a store can grow").
  if (store.storageAtOpen.message)
    process.stderr.write(`storage: ${store.storageAtOpen.message}
`);
}
