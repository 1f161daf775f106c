/**
 * The fsyncs of one directory asked for at about the same time, done as few. A sync makes every
 * entry made before it started durable, so one asked for while another runs waits for the next,
 * which starts when the running one ends and answers everyone who asked meanwhile: a first upload
 * creating a hundred shard directories syncs their parent two or three times, not a hundred.
 */
export class CoalescedSync {
  private running: Promise<void> | undefined;
  private queued: Promise<void> | undefined;

  /** `syncOnce`: one fsync of the directory. */
  constructor(private readonly syncOnce: () => Promise<void>) {}

  /** Settles after an fsync that started after this call; rejects with that fsync's error. */
  sync(): Promise<void> {
    if (this.queued) return this.queued;
    if (!this.running) return this.start();
    const ignore = () => undefined;
    this.queued = this.running.then(ignore, ignore).then(() => {
      this.queued = undefined;
      return this.start();
    });
    return this.queued;
  }

  private start(): Promise<void> {
    const running = this.syncOnce().finally(() => {
      if (this.running === running) this.running = undefined;
    });
    this.running = running;
    return running;
  }
}
