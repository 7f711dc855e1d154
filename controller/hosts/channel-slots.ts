// Bounds concurrent channels per ssh connection: sshd refuses sessions past MaxSessions, and a
// burst of hundreds of channels on one connection starves everything behind it. p-limit does the
// queueing; a slot here is a p-limit task that stays pending until its holder releases it, because
// Docker API streams hold a channel across calls rather than for one function.
import pLimit from 'p-limit';

export interface ChannelSlots {
  /** Resolves once a slot is free; the returned release is safe to call more than once. */
  acquire(): Promise<() => void>;
  readonly active: number;
  readonly waiting: number;
}

export function channelSlots(limit: number): ChannelSlots {
  const queue = pLimit(limit);
  return {
    acquire: () => new Promise((acquired) => {
      void queue(() => new Promise<void>((release) => acquired(() => release())));
    }),
    get active() { return queue.activeCount; },
    get waiting() { return queue.pendingCount; },
  };
}
