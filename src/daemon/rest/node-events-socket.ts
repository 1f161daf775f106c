/**
 * `GET /ws/node`: a WebSocket that streams node events as JSON text messages, read from the
 * event bus like every other subscriber:
 * `{"type":"block","data":{"number":12,"hash":"0x…","txCount":1,"timestamp":1764000000}}`
 * for every committed block, and the storage layer's `{"type":"file","data":{"id","ul_status",
 * "localPath"}}` and `{"type":"chunk","data":{"id","dl_status","volume","replica"}}` changes
 * (docs/storage.md). A client that reads slower than events come is disconnected with close code 1008 and a reason once its unsent
 * backlog passes the bound, as on the JSON-RPC and consensus sockets.
 */
import type { WebSocket } from 'ws';
import type { NodeBlockEvent } from '../../shared/rest-api.js';
import type { StorageEvent } from '../../shared/storage-api.js';
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
  const send = (message: NodeBlockEvent | StorageEvent) => {
    if (socket.readyState !== socket.OPEN) return;
    const text = JSON.stringify(message);
    if (socket.bufferedAmount + text.length > maxBacklogBytes) {
      unsubscribe();
      socket.close(CLOSE_SLOW_CONSUMER, 'slow consumer: too many unread messages, disconnected');
      return;
    }
    socket.send(text);
  };
  const subscriptions = [
    bus.onBlock((event) => send(blockEventOf(event))),
    bus.onStorage((event) => send(event)),
  ];
  const unsubscribe = () => {
    for (const stop of subscriptions) stop();
  };
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
        summary:
          'Stream of node events: every new block as {type: "block", data: {…}}, file status and chunk replica changes as {type: "file" | "chunk", data: {…}}.',
        open: (socket) => streamEvents(socket, bus, maxBacklogBytes),
      },
    ],
  };
}
