/**
 * `GET /ws/node`: a WebSocket that streams node events as JSON text messages, read from the
 * event bus like every other subscriber. Today one kind:
 * `{"type":"block","data":{"number":12,"hash":"0x…","txCount":1,"timestamp":1764000000}}`
 * for every committed block (the storage layer adds file status changes). A client that reads
 * slower than blocks come is disconnected with close code 1008 and a reason once its unsent
 * backlog passes the bound, as on the JSON-RPC and consensus sockets.
 */
import type { WebSocket } from 'ws';
import type { NodeBlockEvent } from '../../shared/rest-api.js';
import type { BlockCommittedEvent, EventBus } from '../events/event-bus.js';
import type { RestResource } from './resource.js';

/** Close code of a slow reader: policy violation, as the other sockets use. */
const CLOSE_SLOW_CONSUMER = 1008;

export function blockEventOf({ block }: BlockCommittedEvent): NodeBlockEvent {
  return {
    type: 'block',
    data: {
      number: Number(block.number),
      hash: block.hashHex,
      txCount: block.block.transactions.length,
      timestamp: Number(block.block.header.timestamp),
    },
  };
}

function streamEvents(socket: WebSocket, bus: EventBus, maxBacklogBytes: number): void {
  const unsubscribe = bus.onBlock((event) => {
    if (socket.readyState !== socket.OPEN) return;
    const text = JSON.stringify(blockEventOf(event));
    if (socket.bufferedAmount + text.length > maxBacklogBytes) {
      unsubscribe();
      socket.close(CLOSE_SLOW_CONSUMER, 'slow consumer: too many unread messages, disconnected');
      return;
    }
    socket.send(text);
  });
  socket.once('close', unsubscribe);
}

export function nodeEventsResource(bus: EventBus, maxBacklogBytes: number): RestResource {
  return {
    name: 'ws',
    description: 'Node event streams.',
    routes: [],
    sockets: [
      {
        path: '/ws/node',
        operationId: 'nodeEvents',
        summary: 'Stream of node events: every new block as {type: "block", data: {…}}.',
        open: (socket) => streamEvents(socket, bus, maxBacklogBytes),
      },
    ],
  };
}
