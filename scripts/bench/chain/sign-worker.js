// Worker thread that signs one share of the plan offline with an ethers Wallet: receives
// {privateKey, requests}[] and answers with {raw, hash}[] per lane, in the same order.
import { parentPort, workerData } from 'node:worker_threads';
import { Wallet, keccak256 } from 'ethers';

const signed = [];
for (const lane of workerData) {
  const wallet = new Wallet(lane.privateKey);
  const transactions = [];
  for (const fields of lane.requests) {
    const raw = await wallet.signTransaction(fields);
    transactions.push({ raw, hash: keccak256(raw) });
  }
  signed.push(transactions);
}
parentPort.postMessage(signed);
