/** A counting semaphore whose waiters can be cancelled with an AbortSignal. */
import { CancelledError } from "./errors";

export class Semaphore {
  private available: number;
  private readonly waiters: { resolve: () => void; reject: (err: unknown) => void; signal?: AbortSignal; onAbort?: () => void }[] = [];

  constructor(readonly size: number) {
    if (!Number.isInteger(size) || size < 1) throw new RangeError(`Semaphore size must be an integer ≥ 1, got ${size}`);
    this.available = size;
  }

  /** Number of callers waiting for a slot. */
  get pending(): number {
    return this.waiters.length;
  }

  /** Slots currently taken. */
  get inUse(): number {
    return this.size - this.available;
  }

  /** Resolves with a release function once a slot is free; rejects with CancelledError if `signal` fires first. */
  acquire(signal?: AbortSignal): Promise<() => void> {
    if (signal?.aborted) return Promise.reject(new CancelledError());
    if (this.available > 0) {
      this.available--;
      return Promise.resolve(this.releaser());
    }
    return new Promise<() => void>((resolve, reject) => {
      const waiter = {
        resolve: () => resolve(this.releaser()),
        reject,
        signal,
        onAbort: undefined as (() => void) | undefined,
      };
      if (signal) {
        waiter.onAbort = () => {
          const i = this.waiters.indexOf(waiter);
          if (i >= 0) this.waiters.splice(i, 1);
          reject(new CancelledError());
        };
        signal.addEventListener("abort", waiter.onAbort, { once: true });
      }
      this.waiters.push(waiter);
    });
  }

  /** Runs `fn` while holding a slot. */
  async run<T>(fn: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    const release = await this.acquire(signal);
    try {
      return await fn();
    } finally {
      release();
    }
  }

  private releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.waiters.shift();
      if (next) {
        if (next.signal && next.onAbort) next.signal.removeEventListener("abort", next.onAbort);
        next.resolve(); // the slot passes directly to the next waiter
      } else {
        this.available++;
      }
    };
  }
}
