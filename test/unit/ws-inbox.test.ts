import { describe, expect, it } from '@jest/globals';
import type { WebSocket } from 'ws';
import { WsInbox } from '../../src/daemon/transport/ws-inbox.js';
import { waitFor } from '../helpers/processes.js';

/** The parts of a ws socket the inbox uses, recording pauses and resumes. */
function fakeSocket(): WebSocket & { calls: string[] } {
  const socket = {
    OPEN: 1,
    readyState: 1,
    isPaused: false,
    calls: [] as string[],
    pause() {
      socket.isPaused = true;
      socket.calls.push('pause');
    },
    resume() {
      socket.isPaused = false;
      socket.calls.push('resume');
    },
  };
  return socket as unknown as WebSocket & { calls: string[] };
}

/** Holds the thread for `ms`, as a costly request would. */
function busy(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until);
}

describe('WsInbox', () => {
  it('handles a burst in slices across turns, in order, with the socket paused meanwhile', async () => {
    const socket = fakeSocket();
    const handled: number[] = [];
    const inbox = new WsInbox(
      socket,
      (text) => {
        busy(1);
        handled.push(Number(text));
      },
      5,
    );
    for (let i = 0; i < 100; i++) inbox.push(String(i));
    const inFirstTurn = handled.length;
    expect(inFirstTurn).toBeGreaterThan(0);
    expect(inFirstTurn).toBeLessThan(100);
    expect(socket.calls).toEqual(['pause']);
    await waitFor(() => handled.length === 100, 10_000, 'every message');
    expect(handled).toEqual(Array.from({ length: 100 }, (_, i) => i));
    await waitFor(() => socket.calls.length === 2, 1_000, 'the socket to be resumed');
    expect(socket.calls).toEqual(['pause', 'resume']);
  });

  it('handles messages at once while the turn has time left', () => {
    const socket = fakeSocket();
    const handled: string[] = [];
    const inbox = new WsInbox(socket, (text) => handled.push(text), 1_000);
    inbox.push('a');
    inbox.push('b');
    expect(handled).toEqual(['a', 'b']);
    expect(socket.calls).toEqual([]);
  });
});
