/**
 * The admin namespace: served only when `--evm.rpc.api` names it, only with the auth token;
 * admin_datadir names the data directory, admin_nodeInfo the node key in devp2p's terms (node
 * id, enode URL and a node record signed by the key) and the chain it runs.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { readFileSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { SigningKey, decodeRlp, encodeRlp, getBytes, keccak256, toUtf8String } from 'ethers';
import { DEV_CHAIN_ID } from '../helpers/dev-chain.js';
import { rpcError } from '../helpers/rpc-errors.js';
import { startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';

interface NodeInfo {
  id: string;
  name: string;
  enode: string;
  enr: string;
  ports: { discovery: number; listener: number };
  protocols: {
    eth: { network: number; genesis: string; head: string; config: Record<string, number> };
  };
}

describe('admin namespace', () => {
  let daemon: TestDaemon;
  let nodeKey: SigningKey;

  beforeAll(async () => {
    daemon = await startTestDaemon(['--evm.rpc.api', 'web3,eth,net,admin', '--block-time', '0']);
    const record = JSON.parse(readFileSync(join(daemon.dataDir, 'node_key.json'), 'utf8')) as {
      privateKey: string;
    };
    nodeKey = new SigningKey(`0x${record.privateKey}`);
  });
  afterAll(() => daemon?.stop());

  it('names the data directory, and no peers', async () => {
    const dataDir = await daemon.authedRpc.call<string>('admin_datadir', []);
    expect(realpathSync(dataDir)).toBe(realpathSync(daemon.dataDir));
    expect(await daemon.authedRpc.call('admin_peers', [])).toEqual([]);
    const addPeer = await rpcError(
      daemon.authedRpc.call('admin_addPeer', ['enode://00@1.2.3.4:1']),
    );
    expect(addPeer.message).toBe('the method admin_addPeer is not supported by this node');
  });

  it('describes the node key and the chain in admin_nodeInfo', async () => {
    const info = await daemon.authedRpc.call<NodeInfo>('admin_nodeInfo', []);
    const publicKey = nodeKey.publicKey.slice(4);
    expect(info.id).toBe(keccak256(`0x${publicKey}`).slice(2));
    expect(info.enode).toBe(`enode://${publicKey}@127.0.0.1:0?discport=0`);
    expect(info.name).toBe(await daemon.rpc.call('web3_clientVersion', []));
    expect(info.ports).toEqual({ discovery: 0, listener: 0 });
    const genesis = await daemon.rpc.call<{ hash: string }>('eth_getBlockByNumber', ['0x0', false]);
    const head = await daemon.rpc.call<{ hash: string }>('eth_getBlockByNumber', ['latest', false]);
    expect(info.protocols.eth).toMatchObject({
      network: Number(DEV_CHAIN_ID),
      genesis: genesis.hash,
      head: head.hash,
    });
    expect(info.protocols.eth.config).toMatchObject({
      chainId: Number(DEV_CHAIN_ID),
      pragueTime: 0,
    });
  });

  it('signs its node record (EIP-778, scheme v4) with the node key', async () => {
    const { enr } = await daemon.authedRpc.call<NodeInfo>('admin_nodeInfo', []);
    expect(enr.startsWith('enr:')).toBe(true);
    const [signature, ...content] = decodeRlp(Buffer.from(enr.slice(4), 'base64url')) as string[];
    expect(content.slice(1, 4).map((item) => toUtf8String(item))).toEqual([
      'id',
      'v4',
      'secp256k1',
    ]);
    expect(content[4]).toBe(nodeKey.compressedPublicKey);
    const digest = keccak256(encodeRlp(content));
    const r = `0x${signature.slice(2, 66)}`;
    const s = `0x${signature.slice(66, 130)}`;
    const recovered = [27, 28].map((v) => SigningKey.recoverPublicKey(digest, { r, s, v }));
    expect(recovered).toContain(nodeKey.publicKey);
    expect(getBytes(signature)).toHaveLength(64);
  });

  it('needs the auth token', async () => {
    const error = await rpcError(daemon.rpc.call('admin_datadir', []));
    expect(error.code).toBe(-32001);
  });

  it('is not served unless --evm.rpc.api names it', async () => {
    const plain = await startTestDaemon();
    try {
      const error = await rpcError(plain.authedRpc.call('admin_nodeInfo', []));
      expect(error.code).toBe(-32601);
      expect(error.message).toMatch(/^the method admin_nodeInfo does not exist\/is not available/);
      expect(error.message).toContain('--evm.rpc.api');
    } finally {
      await plain.stop();
    }
  });
});
