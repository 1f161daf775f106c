// Small edits to EthereumJS's EVM, applied while the daemon is bundled (scripts/bundle-daemon.js),
// never to node_modules itself: the install is shared, and tsc output, the CLI and jest's unit
// tests keep running the library as published. docs/evm-patches.md says what each edit saves,
// and test/unit/evm-patches.test.ts and test/integration/evm-patches.test.ts pin their behaviour.
//
// Each edit replaces one exact piece of a file of one exact version. When the installed version
// differs or a piece is not found exactly once, the build fails and names the edit: the patch has
// to be looked at again against the new release (drop what upstream fixed, re-apply the rest).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/** The version the edits were written against. */
export const PATCHED_EVM_VERSION = '10.1.3';

/**
 * `bigIntToBytes` and `setLengthLeft` as the opcode handlers and gas handlers call them (a stack
 * word to its bytes, left-padded to 32 for MSTORE and storage keys), with the results of
 * `@ethereumjs/util`'s: the library's went through a hex string checked by a regular expression
 * and padded with two spread arrays. Anything unusual (a negative number, little-endian, a
 * truncation) goes to the library's own.
 */
export const WORD_BYTES = `
function bigIntToBytes(num, littleEndian) {
    if (num < BIGINT_0 || littleEndian !== undefined) {
        return utilBigIntToBytes(num, littleEndian);
    }
    const hex = num.toString(16);
    const bytes = new Uint8Array((hex.length + 1) >> 1);
    let digit = hex.length;
    for (let index = bytes.length - 1; index >= 0; index--) {
        const low = hex.charCodeAt(--digit);
        const high = digit > 0 ? hex.charCodeAt(--digit) : 48;
        bytes[index] = ((high < 58 ? high - 48 : high - 87) << 4) | (low < 58 ? low - 48 : low - 87);
    }
    return bytes;
}
function setLengthLeft(msg, length, opts) {
    if (opts !== undefined || !(msg instanceof Uint8Array) || msg.length >= length) {
        return utilSetLengthLeft(msg, length, opts);
    }
    const padded = new Uint8Array(length);
    padded.set(msg, length - msg.length);
    return padded;
}
`;

const WORD_BYTES_WHY =
  'MSTORE, SLOAD, SSTORE, TLOAD, TSTORE and their gas handlers turned each stack word into ' +
  "bytes with @ethereumjs/util's bigIntToBytes (a hex string, validated by a regular " +
  'expression) and setLengthLeft (two spread arrays): a fifth of what a call allocated. The ' +
  'file now imports them under other names and defines faster ones with the same results, ' +
  'falling back to the imported ones for anything but a non-negative number or a short array.';

/**
 * The edits, by file of `@ethereumjs/evm` (the ES module build esbuild bundles). Each has the
 * reason it exists; `find` must occur exactly once in the file.
 */
export const EVM_PATCHES = {
  'dist/esm/interpreter.js': [
    {
      why:
        'Jump-destination analysis (valid JUMPDESTs, PUSH values, the opcode of every byte) ran ' +
        'for every message, over the whole code. It depends only on the code and the opcode ' +
        'table, so it is kept per EVM for each code array, and dropped when the opcode table ' +
        'changes (a hardfork switch). The state managers hand out one array per code hash, and ' +
        'new code (a deployment, a dev setCode) is always a new array.',
      find: `    _getValidJumpDestinations(code) {
        const jumps = new Uint8Array(code.length);`,
      replace: `    _getValidJumpDestinations(code) {
        const evm = this._evm;
        if (evm._codeAnalysesOpcodes !== evm._opcodeMap) {
            evm._codeAnalyses = new WeakMap();
            evm._codeAnalysesOpcodes = evm._opcodeMap;
        }
        let analysis = evm._codeAnalyses.get(code);
        if (analysis === undefined) {
            analysis = this._analyseJumpDestinations(code);
            evm._codeAnalyses.set(code, analysis);
        }
        return analysis;
    }
    _analyseJumpDestinations(code) {
        const jumps = new Uint8Array(code.length);`,
    },
    {
      why:
        'Every opcode went through the async `runStep`, so each one cost a promise and a ' +
        'suspension even when nothing in it waits. An opcode whose handler is synchronous and ' +
        'whose gas is fixed now runs inline, in the same order of checks as in `runStep`, ' +
        'when nothing observes steps (no step listener, no debug or profiler, no code-chunk ' +
        'witness charges); anything else goes through `runStep` as before.',
      find: `                await this.runStep(opCodeObj);`,
      replace: `                const opEntry = opCodeObj ?? this.lookupOpInfo(opCode);
                if (inlineSteps &&
                    !opEntry.opcodeInfo.isAsync &&
                    !opEntry.opcodeInfo.dynamicGas &&
                    this._evm.events.listenerCount('step') === 0) {
                    if (opEntry.opcodeInfo.isInvalid) {
                        throw new EVMError(EVMError.errorMessages.INVALID_OPCODE);
                    }
                    this.useGas(opEntry.opcodeInfo.feeBigInt, opEntry.opcodeInfo);
                    this._runState.programCounter++;
                    consumeEip7928PostTargetCallOog(this._runState);
                    opEntry.opHandler(this._runState, this.common);
                    this._runState.env.accessWitness?.commit();
                }
                else {
                    await this.runStep(opCodeObj);
                }`,
    },
    {
      why: 'When steps may run inline (see above): decided once per run.',
      find: `        let doJumpAnalysis = true;
        let timer;`,
      replace: `        let doJumpAnalysis = true;
        const inlineSteps = this._evm.DEBUG !== true &&
            this.profilerOpts?.enabled !== true &&
            !((this.common.isActivatedEIP(6800) || this.common.isActivatedEIP(7864)) &&
                this._env.chargeCodeAccesses === true);
        let timer;`,
    },
    {
      why:
        'The step event copied memory with `_store.slice`, which is short when the store has ' +
        'not grown to the size the gas was paid for (possible now that memory starts small, ' +
        'see memory.js); `read` zero-fills the rest, as memory beyond the store reads.',
      find: `            memory: this._runState.memory._store.slice(0, Number(memorySize) * 32),`,
      replace: `            memory: this._runState.memory.read(0, Number(memorySize) * 32),`,
    },
  ],
  'dist/esm/memory.js': [
    {
      why:
        'Every message allocated an 8 KiB memory up front; most use a few hundred bytes. Off ' +
        'the V8 heap, that much per call made old-space collections run every second or so ' +
        'under a load of calls. Memory now starts empty and first grows in 1 KiB steps, then ' +
        'in the old 8 KiB ones; what a contract reads and pays for is unchanged.',
      find: `    constructor() {
        this._store = new Uint8Array(CONTAINER_SIZE);
    }`,
      replace: `    constructor() {
        this._store = new Uint8Array(0);
    }`,
    },
    {
      why: 'The first growth of an empty memory (see the constructor).',
      find: `        if (sizeDiff > 0) {
            const expandBy = Math.ceil(sizeDiff / CONTAINER_SIZE) * CONTAINER_SIZE;
            this._store = concatBytes(this._store, new Uint8Array(expandBy));
        }`,
      replace: `        if (sizeDiff > 0 && this._store.length === 0) {
            this._store = new Uint8Array(Math.ceil(newSize / 1024) * 1024);
        }
        else if (sizeDiff > 0) {
            const expandBy = Math.ceil(sizeDiff / CONTAINER_SIZE) * CONTAINER_SIZE;
            this._store = concatBytes(this._store, new Uint8Array(expandBy));
        }`,
    },
  ],
  'dist/esm/opcodes/functions.js': [
    {
      why: WORD_BYTES_WHY,
      find: `bigIntToAddressBytes, bigIntToBytes, bytesToBigInt, bytesToHex, bytesToInt, concatBytes, setLengthLeft, setLengthRight, } from '@ethereumjs/util';`,
      replace: `bigIntToAddressBytes, bigIntToBytes as utilBigIntToBytes, bytesToBigInt, bytesToHex, bytesToInt, concatBytes, setLengthLeft as utilSetLengthLeft, setLengthRight, } from '@ethereumjs/util';${WORD_BYTES}`,
    },
  ],
  'dist/esm/opcodes/gas.js': [
    {
      why: WORD_BYTES_WHY,
      find: `BIGINT_64, bigIntToBytes, equalsBytes, generateAddress, generateAddress2, setLengthLeft, } from '@ethereumjs/util';`,
      replace: `BIGINT_64, bigIntToBytes as utilBigIntToBytes, equalsBytes, generateAddress, generateAddress2, setLengthLeft as utilSetLengthLeft, } from '@ethereumjs/util';${WORD_BYTES}`,
    },
  ],
  'dist/esm/evm.js': [
    {
      why:
        'Every CALL handed the interpreter a spread copy of its message with the gas limit ' +
        'replaced; the message gains fields after it is made (its code, when loaded), and the ' +
        'spread took a twentieth of a distinct eth_call. The copy is now an object literal of ' +
        "every field a Message of this release has or is given (the constructor's, and code, " +
        'isCompiled and chargeCodeAccesses from _loadCode), codeAddress evaluated as before.',
      find: `            result = await this.runInterpreter({
                ...{ codeAddress: message.codeAddress },
                ...message,
                gasLimit,
            }, { initialLogs: eip7708Log ? [eip7708Log] : undefined });`,
      replace: `            result = await this.runInterpreter({
                codeAddress: message.codeAddress,
                to: message.to,
                value: message.value,
                caller: message.caller,
                gasLimit,
                data: message.data,
                eofCallData: message.eofCallData,
                depth: message.depth,
                code: message.code,
                _codeAddress: message._codeAddress,
                isStatic: message.isStatic,
                isCompiled: message.isCompiled,
                salt: message.salt,
                selfdestruct: message.selfdestruct,
                createdAddresses: message.createdAddresses,
                delegatecall: message.delegatecall,
                gasRefund: message.gasRefund,
                blobVersionedHashes: message.blobVersionedHashes,
                accessWitness: message.accessWitness,
                chargeCodeAccesses: message.chargeCodeAccesses,
            }, { initialLogs: eip7708Log ? [eip7708Log] : undefined });`,
    },
    {
      why:
        'Every message built a merged copy of its run state, result and environment (three ' +
        'object spreads of some forty fields) for `execResult.runState`, which neither the VM ' +
        'nor this node reads; it is now built when read.',
      find: `            runState: {
                ...interpreterRes.runState,
                ...result,
                ...interpreter._env,
            },`,
      replace: `            get runState() {
                return { ...interpreterRes.runState, ...result, ...interpreter._env };
            },`,
    },
  ],
  'dist/esm/journal.js': [
    {
      why:
        'Every address warm from the start of a transaction or call (the precompiles, the ' +
        'origin, the recipient, the coinbase: some twenty) got a Set of its own for warm ' +
        'slots, which nearly always stays empty: a twentieth of what a distinct eth_call ' +
        'allocated. They now share one empty Set that is only read; the first slot added for ' +
        'an address (an access list entry) gives it a Set of its own.',
      find: `export class Journal {`,
      replace: `const NO_WARM_SLOTS = new Set();
export class Journal {`,
    },
    {
      why: 'Always-warm addresses share the empty slot Set (see above).',
      find: `        if (!this.alwaysWarmJournal.has(address)) {
            this.alwaysWarmJournal.set(address, new Set());
        }`,
      replace: `        if (!this.alwaysWarmJournal.has(address)) {
            this.alwaysWarmJournal.set(address, NO_WARM_SLOTS);
        }`,
    },
    {
      why: 'The first always-warm slot of an address replaces the shared empty Set (see above).',
      find: `        const slotsSet = this.alwaysWarmJournal.get(address);`,
      replace: `        let slotsSet = this.alwaysWarmJournal.get(address);
        if (slotsSet === NO_WARM_SLOTS) {
            slotsSet = new Set();
            this.alwaysWarmJournal.set(address, slotsSet);
        }`,
    },
  ],
};

const require = createRequire(import.meta.url);

/** The directory of the installed `@ethereumjs/evm` (its exports do not include package.json). */
export function evmPackageDir() {
  return join(dirname(require.resolve('@ethereumjs/evm')), '..', '..');
}

/** `source` of `file` (a key of EVM_PATCHES) with its edits made; throws if one does not fit. */
export function patchEvmSource(file, source) {
  let patched = source;
  for (const edit of EVM_PATCHES[file]) {
    const count = patched.split(edit.find).length - 1;
    if (count !== 1) {
      throw new Error(
        `@ethereumjs/evm ${file}: the piece to patch occurs ${count} times (want 1); ` +
          `review scripts/ethereumjs-patches.js against the installed release. Edit: ${edit.why}`,
      );
    }
    patched = patched.replace(edit.find, () => edit.replace);
  }
  return patched;
}

/** Fails unless the installed `@ethereumjs/evm` is the version the edits were written for. */
export function checkEvmVersion(packageDir = evmPackageDir()) {
  const { version } = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8'));
  if (version !== PATCHED_EVM_VERSION) {
    throw new Error(
      `@ethereumjs/evm is ${version}, scripts/ethereumjs-patches.js was written for ` +
        `${PATCHED_EVM_VERSION}: review the edits against the new release`,
    );
  }
}

/**
 * An esbuild plugin (`plugin`) that loads the patched files with their edits made, and the files
 * it has patched so far (`applied()`), so a bundler can check that it bundled the patched EVM.
 */
export function ethereumjsPatches() {
  const packageDir = evmPackageDir();
  const applied = new Set();
  const plugin = {
    name: 'ethereumjs-patches',
    setup(build) {
      checkEvmVersion(packageDir);
      for (const file of Object.keys(EVM_PATCHES)) {
        const tail = ['@ethereumjs', 'evm', ...file.split('/')].join('[\\\\/]');
        build.onLoad({ filter: new RegExp(`[\\\\/]${tail.replace(/\./g, '\\.')}$`) }, (args) => {
          applied.add(file);
          return {
            contents: patchEvmSource(file, readFileSync(args.path, 'utf8')),
            loader: 'js',
            resolveDir: dirname(args.path),
          };
        });
      }
    },
  };
  return { plugin, applied: () => [...applied] };
}
