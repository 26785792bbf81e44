// The disposal habit of the extension's long-lived objects: each registers what it owns with
// `_register` and is torn down once, in reverse order, by one `dispose()`. VS Code's own
// Disposables fit `Disposable` structurally, so this stays free of the `vscode` module.

export interface IDisposable {
  dispose(): void;
}

export abstract class Disposable implements IDisposable {
  private readonly owned: IDisposable[] = [];
  private disposed = false;

  protected get isDisposed(): boolean {
    return this.disposed;
  }

  /** Owns `thing` from now on: disposed with this object (at once, if this one is already disposed). */
  protected _register<T extends IDisposable>(thing: T): T {
    if (this.disposed) thing.dispose();
    else this.owned.push(thing);
    return thing;
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    // Newest first, and one failure does not keep the rest alive.
    for (const thing of this.owned.splice(0).reverse()) {
      try {
        thing.dispose();
      } catch {
        /* already gone */
      }
    }
  }
}

/** A disposable from a plain function (a timer to clear, a stream to close). */
export function toDisposable(dispose: () => void): IDisposable {
  return { dispose };
}
