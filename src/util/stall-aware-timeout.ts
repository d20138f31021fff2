/**
 * Bounds how long a server (Redis) takes to answer, not how long this process takes to look: a timer that
 * fires late (the event loop was blocked: a GC pause, a burst of signature checks) fired inside
 * our own stall, during which the command may not even have been written, and a reply that
 * arrived meanwhile waits unread behind it. Such a timer re-arms once for the full bound, counted
 * from when we can look again; a loop that stays blocked still ends at the second firing.
 */
export function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    const arm = (rearmed: boolean) => {
      const due = Date.now() + ms;
      timer = setTimeout(() => {
        const lateMs = Date.now() - due;
        if (!rearmed && lateMs > ms / 2) return arm(true);
        reject(new Error(`timed out after ${ms} ms`));
      }, ms);
    };
    arm(false);
  });
  return Promise.race([promise, expired]).finally(() => clearTimeout(timer));
}
