/** Runs async steps one at a time, in call order; a failed step does not block the next. */
export class Mutex {
  private tail: Promise<unknown> = Promise.resolve();

  run<T>(step: () => Promise<T>): Promise<T> {
    const result = this.tail.then(step, step);
    this.tail = result.catch(() => undefined);
    return result;
  }
}
