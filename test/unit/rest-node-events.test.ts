/**
 * The /ws/node stream on a stand-in socket: each committed block becomes one JSON message, and
 * a reader whose unsent backlog would pass the bound is closed with 1008 and a reason and
 * unsubscribed from the bus.
 */
import { describe, expect, it } from '@jest/globals';
import type { IncomingMessage } from 'node:http';
import type { WebSocket } from 'ws';
import type { BlockCommittedEvent } from '../../src/daemon/events/event-bus.js';
import { EventBus } from '../../src/daemon/events/event-bus.js';
import { nodeEventsResource } from '../../src/daemon/rest/node-events-socket.js';

function committed(number: bigint): BlockCommittedEvent {
  return {
    block: {
      number,
      hashHex: `0x${number.toString(16).padStart(64, '0')}`,
      block: { transactions: [{}, {}], header: { timestamp: 1_764_000_000n + number } },
    },
    receipts: [],
    results: [],
  } as unknown as BlockCommittedEvent;
}

/** The parts of a ws socket the stream uses. */
class StandInSocket {
  readonly OPEN = 1;
  readyState = 1;
  bufferedAmount = 0;
  sent: string[] = [];
  closed: { code: number; reason: string } | undefined;
  private onClose: (() => void) | undefined;
  send(text: string) {
    this.sent.push(text);
  }
  close(code: number, reason: string) {
    this.closed = { code, reason };
    this.readyState = 3;
    this.onClose?.();
  }
  once(_event: 'close', listener: () => void) {
    this.onClose = listener;
  }
}

function open(bus: EventBus, maxBacklogBytes: number): StandInSocket {
  const socket = new StandInSocket();
  const route = nodeEventsResource(bus, maxBacklogBytes).sockets?.[0];
  route?.open(socket as unknown as WebSocket, {} as IncomingMessage);
  return socket;
}

describe('/ws/node stream', () => {
  it('sends each committed block as {type: "block", data: {number, hash, txCount, timestamp}}', () => {
    const bus = new EventBus();
    const socket = open(bus, 1024);
    bus.publishBlock(committed(5n));
    expect(socket.sent.map((text) => JSON.parse(text))).toEqual([
      {
        type: 'block',
        data: {
          number: 5,
          hash: `0x${'5'.padStart(64, '0')}`,
          txCount: 2,
          timestamp: 1_764_000_005,
        },
      },
    ]);
  });

  it('drops a slow reader with 1008 and a reason, and stops listening', () => {
    const bus = new EventBus();
    const socket = open(bus, 1024);
    bus.publishBlock(committed(1n));
    socket.bufferedAmount = 1000;
    bus.publishBlock(committed(2n));
    expect(socket.sent).toHaveLength(1);
    expect(socket.closed).toEqual({
      code: 1008,
      reason: 'slow consumer: too many unread messages, disconnected',
    });
    socket.readyState = 1;
    bus.publishBlock(committed(3n));
    expect(socket.sent).toHaveLength(1);
  });
});
