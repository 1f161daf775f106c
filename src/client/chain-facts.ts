/**
 * What `daemon status` tells about the chain a node serves: chain id, head block and its age,
 * and the pool's size, read over public JSON-RPC methods so any node answers them.
 */
import { HttpRpcClient } from './http-rpc-client.js';

export interface ChainFacts {
  /** 0x-hex, as eth_chainId answers. */
  chainId: string;
  head: {
    /** 0x-hex block number. */
    number: string;
    hash: string;
    /** ISO time of the head block. */
    time: string;
    /** Seconds since the head block's timestamp (0 when the clock is behind it). */
    ageSeconds: number;
  };
  /** Transactions waiting in the pool (0x-hex, as txpool_status answers); absent when the node has no txpool namespace. */
  pool?: { pending: string; queued: string };
}

/** How long each question may take before the facts are reported as unknown. */
const FACTS_TIMEOUT_MS = 2_000;

function withDeadline<T>(promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('no answer in time')), FACTS_TIMEOUT_MS);
  });
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer));
}

/** The facts, or undefined when the node did not answer them in time. */
export async function fetchChainFacts(httpUrl: string): Promise<ChainFacts | undefined> {
  const rpc = new HttpRpcClient(httpUrl, { connections: 3 });
  try {
    const [chainId, head, pool] = await withDeadline(
      Promise.all([
        rpc.call<string>('eth_chainId'),
        rpc.call<{ number: string; hash: string; timestamp: string }>('eth_getBlockByNumber', [
          'latest',
          false,
        ]),
        rpc.call<{ pending: string; queued: string }>('txpool_status').catch(() => undefined),
      ]),
    );
    const seconds = Number(BigInt(head.timestamp));
    return {
      chainId,
      head: {
        number: head.number,
        hash: head.hash,
        time: new Date(seconds * 1000).toISOString(),
        ageSeconds: Math.max(0, Math.round(Date.now() / 1000 - seconds)),
      },
      pool: pool && { pending: pool.pending, queued: pool.queued },
    };
  } catch {
    return undefined;
  } finally {
    await rpc.close();
  }
}
