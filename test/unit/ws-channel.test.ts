import { describe, expect, it } from '@jest/globals';
import type { WebSocket } from 'ws';
import { TurnBudget } from '../../src/daemon/time-slice.js';
import { WsChannel } from '../../src/daemon/transport/ws-channel.js';
import { waitFor } from '../helpers/processes.js';

type FakeSocket = WebSocket & {
  calls: string[];
  receive(text: string): void;
  sent: string[];
  /** Flushes every send held so far (only when made with `flushes: false`). */
  flush(): void;
};

/**
 * The parts of a ws socket the channel uses, recording pauses, resumes and sends; with `flushes`
 * false, sends stay unflushed until `flush()`, as to a client that does not read.
 */
function fakeSocket({ flushes = true } = {}): FakeSocket {
  const unflushed: Array<() => void> = [];
  let onMessage: (data: Buffer, isBinary: boolean) => void = () => {};
  const socket = {
    OPEN: 1,
    readyState: 1,
    bufferedAmount: 0,
    calls: [] as string[],
    sent: [] as string[],
    on(event: string, listener: (data: Buffer, isBinary: boolean) => void) {
      if (event === 'message') onMessage = listener;
      return socket;
    },
    receive(text: string) {
      onMessage(Buffer.from(text), false);
    },
    send(text: string, done?: () => void) {
      socket.sent.push(text);
      if (done === undefined) return;
      if (flushes) done();
      else unflushed.push(done);
    },
    flush() {
      for (const done of unflushed.splice(0)) done();
    },
    pause() {
      socket.calls.push('pause');
    },
    resume() {
      socket.calls.push('resume');
    },
  };
  return socket as unknown as FakeSocket;
}

/** Holds the thread for `ms`, as a costly request would. */
function busy(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until);
}

const noError = (error: unknown) => {
  throw error;
};

describe('WsChannel', () => {
  it('handles a burst in slices across turns, in order, with the socket paused meanwhile', async () => {
    const socket = fakeSocket();
    const handled: number[] = [];
    new WsChannel(
      socket,
      1 << 20,
      (text) => {
        busy(1);
        handled.push(Number(text));
        return text;
      },
      noError,
      new TurnBudget(5),
    );
    for (let i = 0; i < 100; i++) socket.receive(String(i));
    const inFirstTurn = handled.length;
    expect(inFirstTurn).toBeGreaterThan(0);
    expect(inFirstTurn).toBeLessThan(100);
    expect(socket.calls).toEqual(['pause']);
    await waitFor(() => handled.length === 100, 10_000, 'every message');
    expect(handled).toEqual(Array.from({ length: 100 }, (_, i) => i));
    expect(socket.sent).toEqual(handled.map(String));
    await waitFor(() => socket.calls.length === 2, 1_000, 'the socket to be resumed');
    expect(socket.calls).toEqual(['pause', 'resume']);
  });

  it('handles messages at once while the turn has time left', () => {
    const socket = fakeSocket();
    const handled: string[] = [];
    new WsChannel(
      socket,
      1 << 20,
      (text) => {
        handled.push(text);
        return undefined;
      },
      noError,
      new TurnBudget(1_000),
    );
    socket.receive('a');
    socket.receive('b');
    expect(handled).toEqual(['a', 'b']);
    expect(socket.calls).toEqual([]);
  });

  it('shares one turn budget among all channels, each keeping its own order', async () => {
    // A clock that moves one ms per message handled: the budget runs out after five of them.
    let clock = 0;
    const turn = new TurnBudget(5, () => clock);
    const handled: string[] = [];
    const sockets = ['a', 'b'].map((name) => {
      const socket = fakeSocket();
      new WsChannel(
        socket,
        1 << 20,
        (text) => {
          clock++;
          handled.push(`${name}${text}`);
          return undefined;
        },
        noError,
        turn,
      );
      return socket;
    });
    for (const socket of sockets) for (let i = 0; i < 10; i++) socket.receive(String(i));
    expect(handled).toEqual(['a0', 'a1', 'a2', 'a3', 'a4']);
    expect(sockets.map((socket) => socket.calls)).toEqual([['pause'], ['pause']]);
    await waitFor(() => handled.length === 20, 10_000, 'every message');
    for (const name of ['a', 'b']) {
      expect(handled.filter((id) => id.startsWith(name))).toEqual(
        Array.from({ length: 10 }, (_, i) => `${name}${i}`),
      );
    }
  });

  it('starts fewer requests at once when the replies are large and the client does not read', async () => {
    const socket = fakeSocket({ flushes: false });
    const running: Array<(reply: string) => void> = [];
    const started: string[] = [];
    new WsChannel(
      socket,
      1000,
      (text) => {
        started.push(text);
        return new Promise<string>((resolve) => running.push(resolve));
      },
      noError,
      new TurnBudget(1_000),
    );
    socket.receive('first');
    running.shift()?.('x'.repeat(400));
    await waitFor(() => socket.sent.length === 1, 1_000, 'the first reply');
    for (const text of ['a', 'b', 'c', 'd', 'e']) socket.receive(text);
    // 400 bytes unflushed, and 400 more expected of each request running: two fit in 1000.
    expect(started).toEqual(['first', 'a', 'b']);
    expect(socket.calls).toEqual(['pause']);
    for (const resolve of running.splice(0)) resolve('y'.repeat(400));
    await waitFor(() => socket.sent.length === 3, 1_000, 'two more replies');
    // 1200 bytes unflushed, above the bound: nothing starts until the client reads.
    expect(started).toEqual(['first', 'a', 'b']);
    socket.flush();
    // Nothing unflushed: three requests expecting 400 bytes each fit.
    await waitFor(() => started.length === 6, 1_000, 'the requests after the flush');
    expect(started).toEqual(['first', 'a', 'b', 'c', 'd', 'e']);
  });
});
