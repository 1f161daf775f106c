/**
 * Wire scripts: `>>` lines are requests sent as is, `<<` lines the exact expected answer to the
 * request before them; a request with no `<<` line expects no answer (notifications). `//`
 * lines are comments. The same script is replayed over every transport.
 */
import { readFileSync } from 'node:fs';
import WebSocket from 'ws';
import type { HttpRpcClient } from '../../src/client/http-rpc-client.js';

export interface WireExchange {
  comment: string;
  request: string;
  /** Parsed expected answer, or undefined when none is due. */
  expected: unknown;
}

export function loadWireScript(path: string): WireExchange[] {
  const exchanges: WireExchange[] = [];
  let comment = '';
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    if (line.startsWith('//')) comment = line.slice(2).trim();
    else if (line.startsWith('>> '))
      exchanges.push({ comment, request: line.slice(3), expected: undefined });
    else if (line.startsWith('<< '))
      exchanges[exchanges.length - 1].expected = JSON.parse(line.slice(3));
  }
  return exchanges;
}

export interface ReplayOutcome {
  exchange: WireExchange;
  actual: unknown;
}

export async function replayOverHttp(
  client: HttpRpcClient,
  script: WireExchange[],
): Promise<ReplayOutcome[]> {
  const outcomes: ReplayOutcome[] = [];
  for (const exchange of script) {
    const response = await client.post(exchange.request);
    outcomes.push({ exchange, actual: response.status === 204 ? undefined : response.body });
  }
  return outcomes;
}

/**
 * Over WebSocket a request that expects no answer is followed by the next request, whose
 * answer must then be the next message: an unexpected answer shows up as a mismatch.
 */
export async function replayOverWs(
  url: string,
  script: WireExchange[],
  token?: string,
): Promise<ReplayOutcome[]> {
  const socket = new WebSocket(url, { headers: token ? { authorization: `Bearer ${token}` } : {} });
  await new Promise((resolve, reject) => {
    socket.once('open', resolve);
    socket.once('error', reject);
  });
  const incoming: unknown[] = [];
  const waiters: Array<(message: unknown) => void> = [];
  socket.on('message', (data) => {
    const message: unknown = JSON.parse(data.toString());
    const waiter = waiters.shift();
    if (waiter) waiter(message);
    else incoming.push(message);
  });
  const next = () =>
    new Promise<unknown>((resolve) => {
      if (incoming.length > 0) resolve(incoming.shift());
      else waiters.push(resolve);
    });
  const outcomes: ReplayOutcome[] = [];
  try {
    for (const exchange of script) {
      socket.send(exchange.request);
      outcomes.push({
        exchange,
        actual: exchange.expected === undefined ? undefined : await next(),
      });
    }
  } finally {
    socket.close();
  }
  return outcomes;
}
