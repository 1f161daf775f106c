/**
 * The edits the daemon's bundle makes to EthereumJS's EVM and state manager
 * (scripts/ethereumjs-patches.js) fit the installed releases: its version is the one they were written for, each piece they replace
 * is found exactly once, the patched files still parse, and a piece that is missing fails the
 * build with the edit named; the opcodes the edits run inline give the library's results. What
 * else the edits must not change is pinned against a real daemon in
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
import { createEVM, type EVMResult } from '@ethereumjs/evm';
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
  WAITLESS_ASYNC_FLAGGED_OPS: Record<string, number>;
  WAITLESS_GAS_HANDLERS: Record<string, number>;
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
    // The EVM's logging library requires Node's built-ins as it loads.
    banner: {
      js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);",
    },
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

/** The opcodes the probes below use, by name: those the edits run inline, and a few more. */
const OPCODES: Record<string, number> = {
  ...patches.WAITLESS_ASYNC_FLAGGED_OPS,
  ...patches.WAITLESS_GAS_HANDLERS,
  STOP: 0x00,
  POP: 0x50,
  MSIZE: 0x59,
  GAS: 0x5a,
  LOG0: 0xa0,
  LOG1: 0xa1,
  LOG2: 0xa2,
  LOG3: 0xa3,
  LOG4: 0xa4,
  STATICCALL: 0xfa,
  INVALID: 0xfe,
};

/** Code from opcode names and numbers (each number a PUSH of the fewest bytes that hold it). */
function assemble(...parts: Array<string | number | bigint>): Uint8Array {
  const bytes: number[] = [];
  for (const part of parts) {
    if (typeof part === 'string') {
      bytes.push(OPCODES[part]);
      continue;
    }
    const hex = part.toString(16);
    const digits = hex.length % 2 === 0 ? hex : `0${hex}`;
    bytes.push(0x5f + digits.length / 2, ...hexToBytes(`0x${digits}`));
  }
  return Uint8Array.from(bytes);
}

/** `value` stored as the word at `offset`. */
const stored = (offset: number, ...value: Array<string | number | bigint>) => [
  ...value,
  offset,
  'MSTORE',
];

/**
 * Every opcode that the edits let run inline because its handlers wait for nothing, with inputs
 * from the call data so gas and results differ from call to call; it returns the hash of its
 * whole memory, the gas left and the memory size, and logs with up to four topics.
 */
const INLINE_PROBE = assemble(
  ...stored(0x00, 'ADDRESS'),
  ...stored(0x20, 'ORIGIN'),
  ...stored(0x40, 'CALLER'),
  ...stored(0x60, 'CALLVALUE'),
  ...stored(0x80, 0, 'CALLDATALOAD'),
  ...stored(0xa0, 0x30, 'CALLDATALOAD'),
  ...stored(0xc0, 'CALLDATASIZE'),
  'CALLDATASIZE',
  0,
  0x200,
  'CALLDATACOPY',
  ...stored(0xe0, 'COINBASE'),
  ...stored(0x100, 'TIMESTAMP'),
  ...stored(0x120, 'NUMBER'),
  ...stored(0x140, 'GASLIMIT'),
  ...stored(0x160, 0, 'CALLDATALOAD', 7, 'EXP'),
  0xab,
  0x181,
  'MSTORE8',
  0x20,
  3,
  0x1a0,
  'CODECOPY',
  0x40,
  0x80,
  0x700,
  'MCOPY',
  0,
  0,
  0x40,
  0x80,
  4,
  'GAS',
  'STATICCALL',
  'POP',
  ...stored(0x1c0, 'RETURNDATASIZE'),
  'RETURNDATASIZE',
  0,
  0x400,
  'RETURNDATACOPY',
  ...stored(0x1e0, 0x200, 'MLOAD'),
  0x20,
  0x80,
  'LOG0',
  1,
  0x21,
  0x80,
  'LOG1',
  2,
  1,
  0x22,
  0x80,
  'LOG2',
  3,
  2,
  1,
  0x23,
  0x80,
  'LOG3',
  4,
  3,
  2,
  1,
  0x24,
  0x80,
  'LOG4',
  ...stored(0x00, 'MSIZE', 0, 'KECCAK256'),
  ...stored(0x20, 'GAS'),
  ...stored(0x40, 'MSIZE'),
  0x60,
  0,
  'RETURN',
);

/** Probes that end otherwise, with the failure each ends in. */
const ENDING_PROBES: Array<[Uint8Array, string | undefined]> = [
  [assemble(...stored(0, 0x2a), 0x20, 0, 'REVERT'), 'revert'],
  [assemble(0, 0x0fffffff, 'MSTORE'), 'out of gas'],
  [assemble(0x0fffffff, 0, 'KECCAK256'), 'out of gas'],
  [assemble(...stored(0, 1), 'INVALID'), 'invalid opcode'],
  // The exponent's 32 bytes are priced; it ends normally.
  [assemble(2n ** 255n, 3, 'EXP', 'STOP'), undefined],
];

/** What a call's result shows of the run: output, gas, failure and logs. */
function shownResult(result: EVMResult) {
  const { execResult } = result;
  return {
    returnValue: bytesToHex(execResult.returnValue),
    gasUsed: execResult.executionGasUsed,
    error: execResult.exceptionError?.error,
    logs: (execResult.logs ?? []).map((log) =>
      log.map((part) =>
        Array.isArray(part) ? part.map(bytesToHex) : bytesToHex(part as Uint8Array),
      ),
    ),
  };
}

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

  it('mark as waiting for nothing only handlers that are not async and await nothing', () => {
    /** The source of the handler of `op` in a map of handlers by opcode: up to the next entry. */
    const handlerSource = (source: string, op: number) => {
      const head = `        0x${op.toString(16).padStart(2, '0')},\n`;
      const start = source.indexOf(head);
      expect(start).toBeGreaterThan(-1);
      return source.slice(start + head.length, source.indexOf('\n    ],', start));
    };
    const functions = installed('dist/esm/opcodes/functions.js');
    for (const op of Object.values(patches.WAITLESS_ASYNC_FLAGGED_OPS)) {
      const handler = handlerSource(functions, op);
      expect(handler).toMatch(/^ {8}function \(runState\) \{/);
      expect(handler).not.toMatch(/await|stateManager|Promise/);
    }
    const gasPackage = patches.PATCHED_PACKAGES.find((pkg) => pkg.name === '@ethereumjs/evm')!;
    const gas = patches.patchSource(
      gasPackage,
      'dist/esm/opcodes/gas.js',
      installed('dist/esm/opcodes/gas.js'),
    );
    for (const op of Object.values(patches.WAITLESS_GAS_HANDLERS)) {
      const handler = handlerSource(gas, op);
      expect(handler).toMatch(/^ {8}function \(runState, gas, common\) \{/);
      expect(handler).not.toMatch(/await|stateManager|Promise/);
    }
  });

  it('run the opcodes whose handlers wait for nothing inline with the results, gas and failures of the library', async () => {
    const patched = await bundledWithEdits<{ createEVM: typeof createEVM }>(
      '@ethereumjs/evm',
      ['createEVM'],
      [
        '@ethereumjs/evm/dist/esm/interpreter.js',
        '@ethereumjs/evm/dist/esm/opcodes/codes.js',
        '@ethereumjs/evm/dist/esm/opcodes/functions.js',
        '@ethereumjs/evm/dist/esm/opcodes/gas.js',
      ],
    );
    const common = new Common({ chain: Mainnet, hardfork: Hardfork.Prague });
    const target = new Address(hexToBytes(`0x${'cd'.repeat(20)}`));
    const caller = new Address(hexToBytes(`0x${'11'.repeat(20)}`));
    const codes = [INLINE_PROBE, ...ENDING_PROBES.map(([code]) => code)];
    const inputs = [
      new Uint8Array(0),
      Uint8Array.of(1),
      hexToBytes(`0x${'00'.repeat(31)}05${'ee'.repeat(40)}`),
      hexToBytes(`0x${'ff'.repeat(32)}`),
    ];
    /** Runs every probe with every input on an EVM made by `make`, optionally watching steps. */
    const runAll = async (make: typeof createEVM, watchSteps: boolean) => {
      const evm = await make({ common: common.copy() });
      let steps = 0;
      if (watchSteps) evm.events!.on('step', () => steps++);
      const shown = [];
      for (const code of codes) {
        await evm.stateManager.putCode(target, code);
        for (const data of inputs) {
          shown.push(
            shownResult(
              await evm.runCall({
                caller,
                origin: caller,
                to: target,
                data,
                value: 3n,
                skipBalance: true,
                gasLimit: 1_000_000n,
              }),
            ),
          );
        }
      }
      return { shown, steps };
    };
    const library = await runAll(createEVM, false);
    const inline = await runAll(patched.createEVM, false);
    const stepped = await runAll(patched.createEVM, true);
    expect(inline.shown).toEqual(library.shown);
    expect(stepped.shown).toEqual(library.shown);
    expect(stepped.steps).toBeGreaterThan(codes.length * inputs.length * 5);
    // The probes did run to their ends: each input its own output, logs, and each ending its own.
    const probeRuns = library.shown.slice(0, inputs.length);
    expect(new Set(probeRuns.map((run) => run.returnValue)).size).toBe(inputs.length);
    expect(probeRuns.every((run) => run.error === undefined && run.logs.length === 5)).toBe(true);
    ENDING_PROBES.forEach(([, error], probe) => {
      const runs = library.shown.slice((probe + 1) * inputs.length, (probe + 2) * inputs.length);
      expect(runs.map((run) => run.error)).toEqual(inputs.map(() => error));
    });
  });

  it('fail the build, naming the edit, when a piece is missing', () => {
    const [file] = Object.keys(patches.EVM_PATCHES);
    const [edit] = patches.EVM_PATCHES[file];
    const source = installed(file).replace(edit.find, '');
    expect(() => patches.patchEvmSource(file, source)).toThrow(edit.why);
  });
});
