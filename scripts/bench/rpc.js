// The control-plane JSON-RPC client of the benchmark (set-up, sends, receipts, eth_getLogs): the
// project's own HttpRpcClient from the build, with enough keep-alive connections for every lane.
import { HttpRpcClient } from '../../dist/client/http-rpc-client.js';

/** @typedef {HttpRpcClient} Rpc */

/** @param {string} url @param {number} connections */
export function connectRpc(url, connections = 16) {
  return new HttpRpcClient(url, { connections });
}
