import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Interface, Wallet, encryptKeystoreJson, getAddress } from 'ethers';
import { DEV_ADDRESSES } from '../../src/daemon/chain/genesis.js';
import { CLI_ENTRY, runCli, runCliJson } from '../helpers/cli.js';
import { loadContract } from '../helpers/contracts.js';
import { startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';

const PASSPHRASE = 'cli passphrase';
const DEV = DEV_ADDRESSES[0];
const RECIPIENT = DEV_ADDRESSES[9];

/**
 * Drives a command through a real pseudo-terminal (python3's pty module): waits for each
 * prompt, types the answer, and returns everything the terminal showed and the exit code.
 */
const PTY_DRIVER = `
import json, os, pty, select, sys, time
job = json.loads(sys.argv[1])
command = job['command']
answers = [(prompt.encode(), answer.encode()) for prompt, answer in job['answers']]
pid, fd = pty.fork()
if pid == 0:
    os.execvp(command[0], command)
seen = b''
def read(until=None, timeout=60):
    global seen
    deadline = time.time() + timeout
    while until is None or until not in seen:
        ready, _, _ = select.select([fd], [], [], max(0, deadline - time.time()))
        if not ready:
            sys.stderr.write('timed out; the terminal showed %r' % seen)
            sys.exit(99)
        try:
            chunk = os.read(fd, 4096)
        except OSError:
            return
        if not chunk:
            return
        seen += chunk
for prompt, answer in answers:
    read(prompt)
    os.write(fd, answer + b'\\r')
read()
_, status = os.waitpid(pid, 0)
sys.stdout.buffer.write(seen)
sys.exit(os.waitstatus_to_exitcode(status))
`;

function runInTerminal(
  args: readonly string[],
  answers: ReadonlyArray<readonly [prompt: string, answer: string]>,
): Promise<{ code: number; screen: string }> {
  const job = JSON.stringify({ command: [process.execPath, CLI_ENTRY, ...args], answers });
  return new Promise((resolve) => {
    execFile(
      'python3',
      ['-c', PTY_DRIVER, job],
      { env: { ...process.env, NO_COLOR: '1' }, timeout: 120_000 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        resolve({ code, screen: `${stdout}${stderr}` });
      },
    );
  });
}

describe('account and tx commands', () => {
  let daemon: TestDaemon;
  let files: string;
  let passwordFile: string;
  const cli = (...args: string[]) => runCli([...args, '--datadir', daemon.dataDir]);
  const cliJson = <T>(...args: string[]) => runCliJson<T>([...args, '--datadir', daemon.dataDir]);

  beforeAll(async () => {
    daemon = await startTestDaemon(['--keystore.light-kdf']);
    files = mkdtempSync(join(tmpdir(), 'cli-accounts-'));
    passwordFile = join(files, 'passphrase.txt');
    writeFileSync(passwordFile, `${PASSPHRASE}\nignored second line\n`);
  });
  afterAll(async () => {
    rmSync(files, { recursive: true, force: true });
    await daemon?.stop();
  });

  it('account new prompts on a terminal, masked and confirmed', async () => {
    const { code, screen } = await runInTerminal(
      ['account', 'new', '--datadir', daemon.dataDir],
      [
        ['Passphrase for the new account', 'typed in a tty'],
        ['Repeat the passphrase', 'typed in a tty'],
      ],
    );
    expect(code).toBe(0);
    expect(screen).toContain('Passphrase for the new account');
    expect(screen).toContain('*'.repeat('typed in a tty'.length));
    expect(screen).not.toContain('typed in a tty');
    const address = /0x[0-9a-fA-F]{40}/.exec(screen)?.[0];
    expect(address).toBeDefined();
    expect(
      await daemon.authedRpc.call('personal_unlockAccount', [address, 'typed in a tty', 5]),
    ).toBe(true);
  });

  it('account new on a terminal refuses two different entries', async () => {
    const { code, screen } = await runInTerminal(
      ['account', 'new', '--datadir', daemon.dataDir],
      [
        ['Passphrase for the new account', 'one'],
        ['Repeat the passphrase', 'two'],
      ],
    );
    expect(code).toBe(1);
    expect(screen).toContain('the passphrases do not match');
  });

  it('account new never prompts without a terminal: it asks for --password-file', async () => {
    const result = await cli('account', 'new');
    expect(result.code).toBe(2);
    expect(result.message).toContain('--password-file');
  });

  it('account new refuses an empty passphrase unless --allow-empty-passphrase', async () => {
    const empty = join(files, 'empty.txt');
    writeFileSync(empty, '');
    const refused = await cli('account', 'new', '--password-file', empty);
    expect(refused.code).toBe(2);
    expect(refused.message).toContain('the passphrase is empty');
    const { address } = await cliJson<{ address: string }>(
      'account',
      'new',
      '--password-file',
      empty,
      '--allow-empty-passphrase',
    );
    expect(await daemon.authedRpc.call('personal_unlockAccount', [address, '', 5])).toBe(true);
  });

  it('account new --password-file creates an account that account list shows', async () => {
    const { address, keyFile } = await cliJson<{ address: string; keyFile: string }>(
      'account',
      'new',
      '--password-file',
      passwordFile,
    );
    expect(address).toBe(getAddress(address));
    const lower = address.slice(2).toLowerCase();
    expect(keyFile).toMatch(new RegExp(`/keystore/UTC--.*--${lower}$`));
    expect(JSON.parse(readFileSync(keyFile, 'utf8'))).toMatchObject({ address: lower });
    const { accounts } = await cliJson<{ accounts: string[] }>('account', 'list');
    expect(accounts.slice(0, 10)).toEqual([...DEV_ADDRESSES]);
    expect(accounts).toContain(address);
    expect(await daemon.authedRpc.call('personal_unlockAccount', [address, PASSPHRASE, 5])).toBe(
      true,
    );
  });

  it('imports a raw key and an ethers key file, unlocks, sends, locks', async () => {
    const raw = Wallet.createRandom();
    const rawFile = join(files, 'key.txt');
    writeFileSync(rawFile, `${raw.privateKey.slice(2)}\n`);
    expect(await cliJson('account', 'import', rawFile, '--password-file', passwordFile)).toEqual({
      address: raw.address,
      source: 'private-key',
    });

    const wallet = Wallet.createRandom();
    const keyFile = join(files, 'ethers.json');
    writeFileSync(
      keyFile,
      await encryptKeystoreJson(
        { address: wallet.address, privateKey: wallet.privateKey },
        PASSPHRASE,
        { scrypt: { N: 1024 } },
      ),
    );
    const address = wallet.address;
    expect(await cliJson('account', 'import', keyFile, '--password-file', passwordFile)).toEqual({
      address,
      source: 'keystore',
    });

    const funded = await cliJson<{ status: string; to: string }>(
      'tx',
      'send',
      '--from',
      DEV,
      '--to',
      address,
      '--value',
      '1.5ether',
    );
    expect(funded).toMatchObject({ status: '0x1', to: address });

    const unlocked = await cliJson<{ durationSeconds: number; expiresAt: string | null }>(
      'account',
      'unlock',
      address,
      '--duration',
      '0',
      '--password-file',
      passwordFile,
    );
    expect(unlocked).toEqual({ address: wallet.address, durationSeconds: 0, expiresAt: null });

    const sent = await cliJson<{ hash: string; from: string; status: string; blockNumber: string }>(
      'tx',
      'send',
      '--from',
      address,
      '--to',
      RECIPIENT,
      '--value',
      '2gwei',
      '--data',
      '0x1234',
    );
    expect(sent).toMatchObject({ from: address, status: '0x1' });
    expect(BigInt(sent.blockNumber)).toBeGreaterThan(0n);
    const tx = await daemon.rpc.call<Record<string, string>>('eth_getTransactionByHash', [
      sent.hash,
    ]);
    expect(tx).toMatchObject({ value: '0x77359400', input: '0x1234' });

    expect(await cliJson('account', 'lock', address)).toEqual({
      address: wallet.address,
      locked: true,
    });
    const refused = await cli('tx', 'send', '--from', address, '--to', RECIPIENT, '--value', '1');
    expect(refused.code).toBe(1);
    expect(refused.message).toContain('authentication needed: password or unlock');
  });

  it('tx send --keystore signs locally and sends raw', async () => {
    const wallet = Wallet.createRandom();
    const keyFile = join(files, 'local.json');
    writeFileSync(
      keyFile,
      await encryptKeystoreJson(
        { address: wallet.address, privateKey: wallet.privateKey },
        PASSPHRASE,
        { scrypt: { N: 1024 } },
      ),
    );
    await cliJson('tx', 'send', '--from', DEV, '--to', wallet.address, '--value', '1ether');
    const human = await cli(
      'tx',
      'send',
      '--keystore',
      keyFile,
      '--password-file',
      passwordFile,
      '--to',
      RECIPIENT,
      '--value',
      '1gwei',
    );
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/status\s+success \(1\)/);
    expect(human.stdout).toMatch(/transaction\s+0x[0-9a-f]{64}/);
    const sent = await cliJson<{ from: string; status: string }>(
      'tx',
      'send',
      '--keystore',
      keyFile,
      '--password-file',
      passwordFile,
      '--to',
      RECIPIENT,
      '--value',
      '1gwei',
      '--gas-price',
      '3gwei',
    );
    expect(sent).toMatchObject({ from: wallet.address, status: '0x1' });

    const wrong = join(files, 'wrong.txt');
    writeFileSync(wrong, 'not it\n');
    const refused = await cli(
      'tx',
      'send',
      '--keystore',
      keyFile,
      '--password-file',
      wrong,
      '--to',
      RECIPIENT,
    );
    expect(refused.code).toBe(1);
    expect(refused.message).toContain('cannot open the key file');
  });

  it('tx send exits 1 with the revert reason of a transaction that fails on chain', async () => {
    const { bytecode } = loadContract('Fixture');
    const deployed = await cliJson<{ contractAddress: string; status: string }>(
      'tx',
      'send',
      '--from',
      DEV,
      '--data',
      bytecode,
    );
    expect(deployed.status).toBe('0x1');
    const fail = new Interface(loadContract('Fixture').abi).encodeFunctionData('fail');
    const reverted = await cli(
      'tx',
      'send',
      '--from',
      DEV,
      '--to',
      deployed.contractAddress,
      '--data',
      fail,
      '--gas',
      '100000',
    );
    expect(reverted.code).toBe(1);
    expect(reverted.message).toMatch(
      /transaction 0x[0-9a-f]{64} failed in block \d+: execution reverted: Fixture: always fails/,
    );
    expect(reverted.stdout).toMatch(/status +failed \(0\)/);
  });

  it('tx send checks its flags before calling the node', async () => {
    expect((await cli('tx', 'send', '--to', RECIPIENT)).code).toBe(2);
    const both = await cli('tx', 'send', '--from', DEV, '--keystore', 'x', '--to', RECIPIENT);
    expect(both.code).toBe(2);
    const amount = await cli('tx', 'send', '--from', DEV, '--to', RECIPIENT, '--value', '1.5');
    expect(amount.code).toBe(2);
    expect(amount.message).toContain('invalid amount "1.5"');
  });
});
