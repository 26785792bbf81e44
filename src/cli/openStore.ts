// Opening the store from a CLI command: whatever recovery found and did is printed on stderr, one
// line each (file names and numbers only), so damage never passes unseen (docs/storage.md).

import { Store, type StoreOptions } from '../store/store';

export function printRecovery(store: Store): void {
  for (const event of store.report.events) process.stderr.write(`recovery: ${event.message}\n`);
}

export async function openStoreForCli(options: StoreOptions): Promise<Store> {
  const store = await Store.open(options);
  printRecovery(store);
  return store;
}
