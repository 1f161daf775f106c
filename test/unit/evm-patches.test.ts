/**
 * The edits the daemon's bundle makes to EthereumJS's EVM and state manager
 * (scripts/ethereumjs-patches.js) fit the installed releases: its version is the one they were written for, each piece they replace
 * is found exactly once, the patched files still parse, and a piece that is missing fails the
 * build with the edit named. What the edits must not change is pinned against a real daemon in
 * test/integration/evm-patches.test.ts and test/integration/state-manager-patches.test.ts.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { build, transform, type Plugin } from 'esbuild';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { pathToFileURL } from 'node:url';
import { Common, Hardfork, Mainnet, type ParamsDict } from '@ethereumjs/common';
import { RLP, type Input as RLPInput } from '@ethereumjs/rlp';
import {
  createFeeMarket1559Tx,
  createTx,
  createTxFromRLP,
  getCalldataFloorGas,
  type TypedTransaction,
  type TypedTxData,
} from '@ethereumjs/tx';
import {
  Address,
  BIGINT_0,
  bigIntToBytes,
  bytesToBigInt,
  bytesToHex,
  hexToBytes,
  publicToAddress,
  setLengthLeft,
  setLengthRight,
} from '@ethereumjs/util';
import { bytesToHex as nobleBytesToHex } from '@noble/hashes/utils.js';

interface Edit {
  why: string;
  find: string;
  replace: string;
}

interface PatchedPackage {
  name: string;
  version: string;
  patches: Record<string, Edit[]>;
}

interface PatchesModule {
  PATCHED_EVM_VERSION: string;
  PATCHED_PACKAGES: PatchedPackage[];
  packageDir(name: string): string;
  patchSource(pkg: PatchedPackage, file: string, source: string): string;
  checkVersion(pkg: PatchedPackage): void;
  WORD_BYTES: string;
  UNPREFIXED_HEX: string;
  SENDER_ADDRESS: string;
  EVM_PATCHES: Record<string, Edit[]>;
  evmPackageDir(): string;
  ethereumjsPatches(): { plugin: Plugin; applied(): string[] };
  patchEvmSource(file: string, source: string): string;
  checkEvmVersion(packageDir?: string): void;
}

const patches = (await import(
  new URL('../../scripts/ethereumjs-patches.js', import.meta.url).href
)) as PatchesModule;
const installed = (file: string, name = '@ethereumjs/evm') =>
  readFileSync(join(patches.packageDir(name), ...file.split('/')), 'utf8');
const patchedFiles = patches.PATCHED_PACKAGES.flatMap((pkg) =>
  Object.keys(pkg.patches).map((file) => [pkg.name, file, pkg] as const),
);

const signedTx = createFeeMarket1559Tx(
  { nonce: 1n, gasLimit: 21_000n, maxFeePerGas: 10n, to: `0x${'11'.repeat(20)}` },
  { common: new Common({ chain: Mainnet }) },
).sign(hexToBytes(`0x${'42'.repeat(32)}`));

/**
 * The exports `names` of `pkg` as the daemon's bundle has them: bundled with the edits made, which
 * must include those of the files `edited` (`<package>/<file>`).
 */
async function bundledWithEdits<T>(pkg: string, names: string[], edited: string[]): Promise<T> {
  const patching = patches.ethereumjsPatches();
  const { outputFiles } = await build({
    stdin: { contents: `export { ${names.join(', ')} } from '${pkg}';`, resolveDir: process.cwd() },
    bundle: true,
    format: 'esm',
    platform: 'node',
    write: false,
    plugins: [patching.plugin],
  });
  expect(patching.applied()).toEqual(expect.arrayContaining(edited));
  const dir = mkdtempSync(join(tmpdir(), 'node-cli-patched-'));
  try {
    writeFileSync(join(dir, 'patched.mjs'), outputFiles[0].text);
    return (await import(pathToFileURL(join(dir, 'patched.mjs')).href)) as T;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Functions of `@ethereumjs/util` as the daemon's bundle has them. */
const patchedUtil = () =>
  bundledWithEdits<{
    bigIntToBytes: typeof bigIntToBytes;
    bytesToBigInt: typeof bytesToBigInt;
    setLengthLeft: typeof setLengthLeft;
    setLengthRight: typeof setLengthRight;
  }>(
    '@ethereumjs/util',
    ['bigIntToBytes', 'bytesToBigInt', 'setLengthLeft', 'setLengthRight'],
    ['@ethereumjs/util/dist/esm/bytes.js'],
  );

describe('edits to EthereumJS', () => {
  it('were written for the installed releases', () => {
    expect(() => patches.checkEvmVersion()).not.toThrow();
    for (const pkg of patches.PATCHED_PACKAGES)
      expect(() => patches.checkVersion(pkg)).not.toThrow();
  });

  it.each(patchedFiles)(
    'fit %s %s exactly once and leave it parseable',
    async (name, file, pkg) => {
      const patched = patches.patchSource(pkg, file, installed(file, name));
      for (const edit of pkg.patches[file]) {
        expect(edit.why.length).toBeGreaterThan(20);
        expect(patched).toContain(edit.replace);
      }
      await expect(transform(patched, { loader: 'js', format: 'esm' })).resolves.toBeDefined();
      // Made once, an edit's piece is gone: patching the patched file fails instead of doubling.
      expect(() => patches.patchSource(pkg, file, patched)).toThrow(/occurs 0 times/);
    },
  );

  it('convert stack words to bytes exactly as @ethereumjs/util does', () => {
    const helpers = new Function(
      'BIGINT_0',
      'utilBigIntToBytes',
      'utilSetLengthLeft',
      `${patches.WORD_BYTES} return { bigIntToBytes, setLengthLeft };`,
    )(BIGINT_0, bigIntToBytes, setLengthLeft) as {
      bigIntToBytes(value: bigint): Uint8Array;
      setLengthLeft(bytes: Uint8Array, length: number): Uint8Array;
    };
    const words = [0n, 1n, 0xfn, 0x10n, 0xffn, 0x100n, 0xabcn, 2n ** 255n, 2n ** 256n - 1n];
    for (let bits = 1; bits <= 256; bits++)
      words.push((1n << BigInt(bits)) - 1n, 1n << BigInt(bits - 1));
    for (const value of words) {
      expect(bytesToHex(helpers.bigIntToBytes(value))).toBe(bytesToHex(bigIntToBytes(value)));
      expect(bytesToHex(helpers.setLengthLeft(helpers.bigIntToBytes(value), 32))).toBe(
        bytesToHex(setLengthLeft(bigIntToBytes(value), 32)),
      );
    }
    // What the fast paths leave to the library behaves as the library's.
    expect(() => helpers.bigIntToBytes(-1n)).toThrow();
    expect(() => helpers.setLengthLeft(new Uint8Array(33), 32)).toThrow();
  });

  it('write bytes as hex exactly as @noble/hashes does, and refuse what it refuses', () => {
    const bytesToUnprefixedHex = new Function(
      'bytesToUnprefixedHexNoble',
      `${patches.UNPREFIXED_HEX.replace('export const', 'const')} return bytesToUnprefixedHex;`,
    )(nobleBytesToHex) as (bytes: unknown) => string;
    const backing = Uint8Array.from({ length: 300 }, (_, index) => (index * 151) % 256);
    for (const length of [0, 1, 2, 20, 31, 32, 33, 256])
      for (const offset of [0, 1, 7]) {
        const bytes = backing.subarray(offset, offset + length);
        expect(bytesToUnprefixedHex(bytes)).toBe(nobleBytesToHex(bytes));
      }
    expect(bytesToUnprefixedHex(Buffer.from([0xab, 0x01]))).toBe('ab01');
    for (const notBytes of ['ab', [1, 2], undefined]) {
      expect(() => bytesToUnprefixedHex(notBytes)).toThrow();
    }
  });

  it("keep a frozen transaction's sender address, and only a frozen one's", () => {
    const getSenderAddress = new Function(
      'Address',
      'publicToAddress',
      `${patches.SENDER_ADDRESS.replace('export function', 'function')} return getSenderAddress;`,
    )(Address, publicToAddress) as (tx: TypedTransaction) => Address;
    const signed = () => createTxFromRLP(signedTx.serialize(), { common: signedTx.common });
    const sender = signedTx.getSenderAddress();

    const frozen = signed();
    const first = getSenderAddress(frozen);
    expect(first.equals(sender)).toBe(true);
    expect(getSenderAddress(frozen)).toBe(first);

    const given = signed();
    const recovered = new Address(sender.bytes.slice());
    (given.cache as { senderAddress?: Address }).senderAddress = recovered;
    expect(getSenderAddress(given)).toBe(recovered);

    const unfrozen = createTxFromRLP(signedTx.serialize(), {
      common: signedTx.common,
      freeze: false,
    });
    expect(getSenderAddress(unfrozen).equals(sender)).toBe(true);
    expect(getSenderAddress(unfrozen)).not.toBe(getSenderAddress(unfrozen));
  });

  it('turn numbers into bytes, bytes into numbers, and pad bytes exactly as @ethereumjs/util does', async () => {
    const util = await patchedUtil();
    const numbers = [0n, 1n, 0xfn, 0x10n, 0x7fn, 0x80n, 0xffn, 0x100n, 0xabcn, 2n ** 256n - 1n];
    for (let bits = 1; bits <= 300; bits++)
      numbers.push((1n << BigInt(bits)) - 1n, 1n << BigInt(bits - 1));
    for (const value of numbers) {
      expect(bytesToHex(util.bigIntToBytes(value))).toBe(bytesToHex(bigIntToBytes(value)));
      expect(bytesToHex(util.bigIntToBytes(value, true))).toBe(
        bytesToHex(bigIntToBytes(value, true)),
      );
    }
    expect(() => util.bigIntToBytes(-1n)).toThrow();
    for (const value of numbers) {
      const bytes = bigIntToBytes(value);
      expect(util.bytesToBigInt(bytes)).toBe(bytesToBigInt(bytes));
      expect(util.bytesToBigInt(bytes, true)).toBe(bytesToBigInt(bytes, true));
    }
    for (const bytes of [new Uint8Array(0), Uint8Array.of(0, 0), Uint8Array.of(0, 255)]) {
      expect(util.bytesToBigInt(bytes)).toBe(bytesToBigInt(bytes));
    }
    for (let high = 0; high < 256; high += 15)
      for (let low = 0; low < 256; low += 17) {
        const bytes = Uint8Array.of(high, low);
        expect(util.bytesToBigInt(bytes)).toBe(bytesToBigInt(bytes));
      }

    const backing = Uint8Array.from({ length: 80 }, (_, index) => index + 1);
    for (const size of [0, 1, 20, 31, 32, 33])
      for (const offset of [0, 3]) {
        const bytes = backing.subarray(offset, offset + size);
        for (const length of [0, 20, 32, 64]) {
          for (const [patched, library] of [
            [util.setLengthLeft, setLengthLeft],
            [util.setLengthRight, setLengthRight],
          ] as const) {
            if (size > length) {
              expect(() => patched(bytes, length)).toThrow();
              expect(bytesToHex(patched(bytes, length, { allowTruncate: true }))).toBe(
                bytesToHex(library(bytes, length, { allowTruncate: true })),
              );
              continue;
            }
            const padded = patched(bytes, length);
            expect(bytesToHex(padded)).toBe(bytesToHex(library(bytes, length)));
            expect(padded === bytes).toBe(library(bytes, length) === bytes);
          }
        }
      }
  });

  it("price a transaction's calldata exactly as @ethereumjs/tx does", async () => {
    const patchedTx = await bundledWithEdits<{
      createFeeMarket1559Tx: typeof createFeeMarket1559Tx;
      getCalldataFloorGas: typeof getCalldataFloorGas;
    }>(
      '@ethereumjs/tx',
      ['createFeeMarket1559Tx', 'getCalldataFloorGas'],
      [
        '@ethereumjs/tx/dist/esm/capabilities/legacy.js',
        '@ethereumjs/tx/dist/esm/util/intrinsic.js',
        '@ethereumjs/util/dist/esm/bytes.js',
      ],
    );
    const common = new Common({ chain: Mainnet, hardfork: Hardfork.Prague });
    const datas = [
      new Uint8Array(0),
      new Uint8Array(5),
      Uint8Array.of(1, 0, 255, 0, 0, 7),
      Uint8Array.from({ length: 1000 }, (_, index) => (index % 3 === 0 ? 0 : index % 256)),
    ];
    for (const data of datas)
      for (const to of [new Address(hexToBytes(`0x${'11'.repeat(20)}`)), undefined]) {
        const fields = { nonce: 0n, gasLimit: 10_000_000n, maxFeePerGas: 10n, to, data };
        const patched = patchedTx.createFeeMarket1559Tx(fields, { common });
        const library = createFeeMarket1559Tx(fields, { common });
        expect(patched.getDataGas()).toBe(library.getDataGas());
        expect(patched.getIntrinsicGas()).toBe(library.getIntrinsicGas());
        expect(patchedTx.getCalldataFloorGas(patched)).toBe(getCalldataFloorGas(library));
      }
  });

  it("give each transaction a Common of its own, as @ethereumjs/tx does, following the given one's changes", async () => {
    const patchedTx = await bundledWithEdits<{
      createTx: typeof createTx;
    }>(
      '@ethereumjs/tx',
      ['createTx'],
      ['@ethereumjs/tx/dist/esm/util/internal.js', '@ethereumjs/tx/dist/esm/legacy/tx.js'],
    );
    const common = new Common({ chain: Mainnet, hardfork: Hardfork.Prague });
    const to = new Address(hexToBytes(`0x${'11'.repeat(20)}`));
    const kinds: TypedTxData[] = [
      { type: 0, gasPrice: 10n },
      { type: 1, gasPrice: 10n, accessList: [] },
      { type: 2, maxFeePerGas: 10n },
    ];
    /** What a transaction's Common answers, as far as the transaction and the node read it. */
    const seen = (tx: TypedTransaction) => ({
      hardfork: tx.common.hardfork(),
      chainId: tx.common.chainId(),
      eip7702: tx.common.isActivatedEIP(7702),
      txGas: tx.common.param('txGas'),
      intrinsic: tx.getIntrinsicGas(),
      encoded: bytesToHex(tx.serialize()),
    });
    const both = (params?: ParamsDict) =>
      kinds.map((fields) => {
        const data = { nonce: 1n, gasLimit: 100_000n, to, ...fields } as TypedTxData;
        const patched = patchedTx.createTx(data, { common, params });
        const library = createTx(data, { common, params });
        expect(seen(patched)).toEqual(seen(library));
        return patched;
      });
    const [first] = both();
    const [second] = both();
    expect(second.common).not.toBe(first.common);
    common.setHardfork(Hardfork.Cancun);
    expect(both().map((tx) => tx.common.hardfork())).toEqual(Array(3).fill(Hardfork.Cancun));
    expect(first.common.hardfork()).toBe(Hardfork.Prague);
    common.updateParams({ 1: { txGas: 30_000 } });
    both();
    both({ 1: { txGas: 25_000, txCreationGas: 32_000, txDataZeroGas: 4, txDataNonZeroGas: 16 } });
  });

  it('RLP-encode exactly as @ethereumjs/rlp does, and refuse what it refuses', async () => {
    const patched = await bundledWithEdits<{ RLP: typeof RLP }>(
      '@ethereumjs/rlp',
      ['RLP'],
      ['@ethereumjs/rlp/dist/esm/index.js'],
    );
    const bytes = (length: number, seed: number) =>
      Uint8Array.from({ length }, (_, index) => (index * 31 + seed) % 256);
    const scalars: RLPInput[] = [
      new Uint8Array(0),
      Uint8Array.of(0),
      Uint8Array.of(0x7f),
      Uint8Array.of(0x80),
      ...[2, 55, 56, 255, 256, 1024, 70_000].map((length) => bytes(length, length)),
      0,
      1,
      127,
      128,
      2 ** 40,
      0n,
      2n ** 255n,
      '0x',
      '0xabc',
      'dog',
      null,
      undefined,
    ];
    const inputs: RLPInput[] = [
      [],
      [[]],
      [[], [[]], [[], [[]]]],
      scalars,
      scalars.map((scalar) => [scalar, [scalar, []]]),
      Array.from({ length: 300 }, (_, index) => bytes(index % 60, index)),
      [bytes(70_000, 1), [bytes(56, 2), [bytes(1, 3)]]],
    ];
    for (const input of [...inputs, ...scalars]) {
      expect(bytesToHex(patched.RLP.encode(input))).toBe(bytesToHex(RLP.encode(input)));
    }
    const single = Uint8Array.of(5);
    expect(patched.RLP.encode(single)).toBe(RLP.encode(single));
    for (const refused of [[-1], [1, [{}]]] as unknown as RLPInput[]) {
      expect(() => patched.RLP.encode(refused)).toThrow();
      expect(() => RLP.encode(refused)).toThrow();
    }
  });

  it('fail the build, naming the edit, when a piece is missing', () => {
    const [file] = Object.keys(patches.EVM_PATCHES);
    const [edit] = patches.EVM_PATCHES[file];
    const source = installed(file).replace(edit.find, '');
    expect(() => patches.patchEvmSource(file, source)).toThrow(edit.why);
  });
});
