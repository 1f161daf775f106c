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
 * The big-endian bytes of a non-negative bigint `num` into `bytes`, written from the digits of
 * `toString(16)` (the library went through a prefixed hex string checked by a regular
 * expression); the body shared by the conversions below.
 */
const NUMBER_INTO_BYTES = `    const hex = num.toString(16);
    const bytes = new Uint8Array((hex.length + 1) >> 1);
    let digit = hex.length;
    for (let index = bytes.length - 1; index >= 0; index--) {
        const low = hex.charCodeAt(--digit);
        const high = digit > 0 ? hex.charCodeAt(--digit) : 48;
        bytes[index] = ((high < 58 ? high - 48 : high - 87) << 4) | (low < 58 ? low - 48 : low - 87);
    }`;

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
${NUMBER_INTO_BYTES}
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
 * Opcodes flagged `isAsync` whose handlers wait for nothing (they read the message, the block or
 * the return data through the interpreter's getters, or copy bytes into memory).
 */
export const WAITLESS_ASYNC_FLAGGED_OPS = {
  ADDRESS: 0x30,
  ORIGIN: 0x32,
  CALLER: 0x33,
  CALLVALUE: 0x34,
  CALLDATALOAD: 0x35,
  CALLDATASIZE: 0x36,
  CALLDATACOPY: 0x37,
  RETURNDATASIZE: 0x3d,
  RETURNDATACOPY: 0x3e,
  COINBASE: 0x41,
  TIMESTAMP: 0x42,
  NUMBER: 0x43,
  GASLIMIT: 0x45,
};

/**
 * Dynamic gas handlers declared `async` that wait for nothing (memory expansion, word counts,
 * the warm-slot check of SLOAD): the edits drop their `async`.
 */
export const WAITLESS_GAS_HANDLERS = {
  EXP: 0x0a,
  KECCAK256: 0x20,
  CALLDATACOPY: 0x37,
  CODECOPY: 0x39,
  RETURNDATACOPY: 0x3e,
  MLOAD: 0x51,
  MSTORE: 0x52,
  MSTORE8: 0x53,
  SLOAD: 0x54,
  MCOPY: 0x5e,
  LOG: 0xa0,
  RETURN: 0xf3,
  REVERT: 0xfd,
};

const opList = (ops) =>
  Object.values(ops)
    .map((op) => `0x${op.toString(16).padStart(2, '0')}`)
    .join(', ');

/** The edit that drops `async` from the gas handler of `name` (its opcode `op`). */
function waitlessGasHandler(name, op) {
  const head = `        /* ${name} */\n        0x${op.toString(16).padStart(2, '0')},\n`;
  return {
    why:
      `The gas handler of ${name} waits for nothing but was declared async: a promise for ` +
      'every such opcode, and the opcode could not run inline (see interpreter.js).',
    find: `${head}        async function (runState, gas, common) {`,
    replace: `${head}        function (runState, gas, common) {`,
  };
}

/**
 * The edit that marks the handlers of `ops` in the map `map` as waiting for nothing, for
 * `runsInline` (see codes.js): made after the file's last statement, which gives the LOG
 * opcodes their shared handler `logHandler`.
 */
function markWaitless(map, logHandler, ops) {
  const last = `for (let i = 0xa1; i <= 0xa4; i++) {
    ${map}.set(i, ${logHandler});
}`;
  return {
    why: `Marks the handlers in ${map} that wait for nothing (${Object.keys(ops).join(', ')}).`,
    find: last,
    replace: `${last}
for (const op of [${opList(ops)}]) {
    ${map}.get(op).waitsForNothing = true;
}`,
  };
}

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
        'suspension even when nothing in it waits. An opcode whose handler and gas handler ' +
        'wait for nothing (`runsInline`, see codes.js) now runs inline, in the same order of ' +
        'checks as in `runStep`, when nothing observes steps (no step listener, no debug or ' +
        'profiler, no code-chunk witness charges); anything else goes through `runStep` as before.',
      find: `                await this.runStep(opCodeObj);`,
      replace: `                const opEntry = opCodeObj ?? this.lookupOpInfo(opCode);
                if (inlineSteps &&
                    opEntry.runsInline === true &&
                    this._evm.events.listenerCount('step') === 0) {
                    const opInfo = opEntry.opcodeInfo;
                    const gas = opInfo.dynamicGas
                        ? opEntry.gasHandler(this._runState, opInfo.feeBigInt, this.common)
                        : opInfo.feeBigInt;
                    if (opInfo.isInvalid) {
                        throw new EVMError(EVMError.errorMessages.INVALID_OPCODE);
                    }
                    this.useGas(gas, opInfo);
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
    markWaitless('handlers', 'logFn', WAITLESS_ASYNC_FLAGGED_OPS),
    {
      why: WORD_BYTES_WHY,
      find: `bigIntToAddressBytes, bigIntToBytes, bytesToBigInt, bytesToHex, bytesToInt, concatBytes, setLengthLeft, setLengthRight, } from '@ethereumjs/util';`,
      replace: `bigIntToAddressBytes, bigIntToBytes as utilBigIntToBytes, bytesToBigInt, bytesToHex, bytesToInt, concatBytes, setLengthLeft as utilSetLengthLeft, setLengthRight, } from '@ethereumjs/util';${WORD_BYTES}`,
    },
  ],
  'dist/esm/opcodes/gas.js': [
    ...Object.entries(WAITLESS_GAS_HANDLERS).map(([name, op]) => waitlessGasHandler(name, op)),
    markWaitless('dynamicGasHandlers', 'logDynamicFunc', WAITLESS_GAS_HANDLERS),
    {
      why: WORD_BYTES_WHY,
      find: `BIGINT_64, bigIntToBytes, equalsBytes, generateAddress, generateAddress2, setLengthLeft, } from '@ethereumjs/util';`,
      replace: `BIGINT_64, bigIntToBytes as utilBigIntToBytes, equalsBytes, generateAddress, generateAddress2, setLengthLeft as utilSetLengthLeft, } from '@ethereumjs/util';${WORD_BYTES}`,
    },
  ],
  'dist/esm/opcodes/codes.js': [
    {
      why:
        'Whether an opcode may run inline in the interpreter loop, decided once per opcode ' +
        'table: its handler is synchronous (not flagged async, or flagged but marked as waiting ' +
        'for nothing) and its gas is fixed or computed by a handler marked the same way. An ' +
        "opcode added through the EVM's customOpcodes option has no mark and goes through " +
        '`runStep` unless it is synchronous with fixed gas.',
      find: `        opcodeMap[opNumber] = {
            opcodeInfo: op,
            opHandler: handler,
            gasHandler: dynamicGas,
        };`,
      replace: `        opcodeMap[opNumber] = {
            opcodeInfo: op,
            opHandler: handler,
            gasHandler: dynamicGas,
            runsInline: (!op.isAsync || handler?.waitsForNothing === true) &&
                (!op.dynamicGas || dynamicGas?.waitsForNothing === true),
        };`,
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

/** The version of `@ethereumjs/statemanager` the edits of STATE_MANAGER_PATCHES were written against. */
export const PATCHED_STATE_MANAGER_VERSION = '10.1.3';

/** The edits, by file of `@ethereumjs/statemanager` (its ES module build), as for the EVM. */
export const STATE_MANAGER_PATCHES = {
  'dist/esm/merkleStateManager.js': [
    {
      why:
        "`putStorage` chained the storage cache's `put`, which returns nothing, with `??` to " +
        'the write into the storage trie, so every SSTORE also walked, rewrote and re-hashed the ' +
        "contract's storage trie path and wrote the contract's account, although the cache " +
        'writes the slot into the trie again when it is flushed (at the end of a block, or ' +
        'before a state root is read): most of the garbage an ERC-20 transfer made. A state ' +
        'manager with a storage cache now only writes the cache; one without writes the trie ' +
        'as before.',
      find: `        this._caches?.storage?.put(address, key, RLP.encode(value)) ??
            (await this._writeContractStorage(address, account, key, value));`,
      replace: `        if (this._caches?.storage !== undefined) {
            this._caches.storage.put(address, key, RLP.encode(value));
        }
        else {
            await this._writeContractStorage(address, account, key, value);
        }`,
    },
  ],
};

/**
 * `bytesToUnprefixedHex` of `@ethereumjs/util` through Node's own hex encoder (the one
 * `Buffer#toString('hex')` uses, called on the array as it is), with @noble/hashes' result:
 * lower-case digits, two per byte. Anything but a `Uint8Array`, or a runtime without the
 * encoder, goes to @noble/hashes' function, which also does the type check.
 */
export const UNPREFIXED_HEX = `
const nodeHexSlice = typeof Buffer === 'function' ? Buffer.prototype.hexSlice : undefined;
export const bytesToUnprefixedHex = (bytes) =>
    nodeHexSlice !== undefined && bytes instanceof Uint8Array
        ? nodeHexSlice.call(bytes, 0, bytes.length)
        : bytesToUnprefixedHexNoble(bytes);
`;

/**
 * `bigIntToBytes` of `@ethereumjs/util` writing the digits of `toString(16)` straight into the
 * array, as WORD_BYTES does for the EVM; a negative number goes the library's way (which throws).
 */
export const BIGINT_TO_BYTES = `export const bigIntToBytes = (num, littleEndian = false) => {
    if (num < BIGINT_0) {
        const refused = hexToBytes(\`0x\${padToEven(num.toString(16))}\`);
        return littleEndian ? refused.reverse() : refused;
    }
${NUMBER_INTO_BYTES}
    return littleEndian ? bytes.reverse() : bytes;
};`;

/**
 * The padding of `setLengthLeft` and `setLengthRight` of `@ethereumjs/util`: a zeroed array of
 * the length with the bytes copied in, instead of one built from two spread arrays.
 */
export const SET_LENGTH_PADDING = `    if (msg.length < length) {
        const padded = new Uint8Array(length);
        padded.set(msg, right ? 0 : length - msg.length);
        return padded;
    }`;

/** The version of `@ethereumjs/util` the edits of UTIL_PATCHES were written against. */
export const PATCHED_UTIL_VERSION = '10.1.3';

/** The edits, by file of `@ethereumjs/util` (its ES module build), as for the EVM. */
export const UTIL_PATCHES = {
  'dist/esm/bytes.js': [
    {
      why:
        'Every cache of the state manager and the EVM keys its maps by hex strings (an ' +
        'address, a storage slot: two per storage read or write), and `bytesToHex` and ' +
        '`bytesToUnprefixedHex` built them from @noble/hashes by adding two digits at a time, ' +
        'one intermediate string per byte: a tenth of what an ERC-20 transfer allocated on the ' +
        "main thread. Node's hex encoder makes the one string directly, about three times " +
        'faster, with the same digits.',
      find: `export const bytesToUnprefixedHex = bytesToUnprefixedHexNoble;`,
      replace: UNPREFIXED_HEX,
    },
    {
      why:
        '`bigIntToBytes` (every number the RLP encoder writes: transaction and receipt fields, ' +
        'gas figures, the EVM outside its opcode handlers) went through a hex string with a ' +
        'prefix, checked by a regular expression, then decoded; the digits are now written ' +
        'into the array directly, with the same bytes.',
      find: `export const bigIntToBytes = (num, littleEndian = false) => {
    const bytes = hexToBytes(\`0x\${padToEven(num.toString(16))}\`);
    return littleEndian ? bytes.reverse() : bytes;
};`,
      replace: BIGINT_TO_BYTES,
    },
    {
      why:
        '`setLengthLeft` and `setLengthRight` padded through two spread arrays, one element ' +
        "at a time; the EVM's storage reads and writes pad every slot value and key this way " +
        '(`setLengthLeftStorage`), some 70 ms of the main thread in a burst of 4 000 ERC-20 ' +
        'transfers. The padded array is now a zeroed one with the bytes copied in.',
      find: `    if (msg.length < length) {
        return right
            ? new Uint8Array([...msg, ...new Uint8Array(length - msg.length)])
            : new Uint8Array([...new Uint8Array(length - msg.length), ...msg]);
    }`,
      replace: SET_LENGTH_PADDING,
    },
    {
      why:
        '`bytesToBigInt` answered one- and two-byte numbers from 65 536 bigints made when the ' +
        'module loads: 2 MiB of heap in every isolate that loads the library (the main thread, ' +
        'each call thread and trace thread), for as long as it runs. The one-byte numbers stay ' +
        'cached; a two-byte number is made when asked, one small bigint.',
      find: `const BIGINT_CACHE = [];
for (let i = 0; i <= 256 * 256 - 1; i++) {
    BIGINT_CACHE[i] = BigInt(i);
}`,
      replace: `const BIGINT_CACHE = [];
for (let i = 0; i <= 255; i++) {
    BIGINT_CACHE[i] = BigInt(i);
}`,
    },
    {
      why: 'The two-byte half of the edit before: the number made from its two bytes.',
      find: `        return BIGINT_CACHE[bytes[0] * 256 + bytes[1]];`,
      replace: `        return BigInt(bytes[0] * 256 + bytes[1]);`,
    },
  ],
};

/**
 * `getSenderAddress` of `@ethereumjs/tx` with the address kept in the transaction's cache beside
 * its public key, as the library keeps the key: only for a frozen transaction, whose signature
 * cannot change. The node puts there the address its recovery threads computed.
 */
export const SENDER_ADDRESS = `export function getSenderAddress(tx) {
    if (tx.cache.senderAddress !== undefined) {
        return tx.cache.senderAddress;
    }
    const address = new Address(publicToAddress(tx.getSenderPublicKey()));
    if (Object.isFrozen(tx)) {
        tx.cache.senderAddress = address;
    }
    return address;
}`;

/**
 * The start of `sharedConstructor` of `@ethereumjs/tx` (every transaction's constructor) with the
 * transaction's own copy of its `Common` made from a copy kept per `Common` given, whose
 * parameters are already brought up to date with the transaction parameters. The kept copy is
 * used while the given `Common` keeps the parameter cache it had (its methods that change its
 * hardfork, EIPs or parameters all build a new one) and the same parameters are asked for.
 */
export const TX_COMMON = `const preparedCommons = new WeakMap();
function transactionCommon(source, params) {
    if (source === undefined) {
        const common = getCommon(source);
        common.updateParams(params);
        return common;
    }
    let kept = preparedCommons.get(source);
    if (kept === undefined || kept.paramsCache !== source._paramsCache || kept.params !== params) {
        const prepared = source.copy();
        prepared.updateParams(params);
        kept = { paramsCache: source._paramsCache, params, prepared };
        preparedCommons.set(source, kept);
    }
    return kept.prepared.copy();
}
export function sharedConstructor(tx, txData, opts = {}) {
    tx.common = transactionCommon(opts.common, opts.params ?? paramsTx);`;

/** The version of `@ethereumjs/tx` the edits of TX_PATCHES were written against. */
export const PATCHED_TX_VERSION = '10.1.3';

/** The edits, by file of `@ethereumjs/tx` (its ES module build), as for the EVM. */
export const TX_PATCHES = {
  'dist/esm/capabilities/legacy.js': [
    {
      why:
        "`runTx` asks every transaction for its sender's address, and `getSenderAddress` " +
        'hashed the cached public key again each time, with the JavaScript keccak (some 10-20 ' +
        'us a transaction on the thread that builds blocks), although the recovery thread had ' +
        'computed the address already. A frozen transaction now keeps its address in its cache, ' +
        'where the node also puts the one its recovery threads computed.',
      find: `export function getSenderAddress(tx) {
    return new Address(publicToAddress(tx.getSenderPublicKey()));
}`,
      replace: SENDER_ADDRESS,
    },
    {
      why:
        "`getDataGas` added each calldata byte's gas as a bigint, one bigint allocated per " +
        'byte; the zero and non-zero bytes are now counted as numbers and priced once, with ' +
        'the same result.',
      find: `    for (let i = 0; i < tx.data.length; i++) {
        tx.data[i] === 0 ? (cost += txDataZero) : (cost += txDataNonZero);
    }`,
      replace: `    let zeros = 0;
    for (let i = 0; i < tx.data.length; i++) {
        if (tx.data[i] === 0)
            zeros++;
    }
    const nonZeros = tx.data.length - zeros;
    if (zeros > 0)
        cost += BigInt(zeros) * txDataZero;
    if (nonZeros > 0)
        cost += BigInt(nonZeros) * txDataNonZero;`,
    },
  ],
  'dist/esm/legacy/tx.js': [
    {
      why:
        'A legacy transaction brought its `Common` up to date with the transaction parameters ' +
        'a second time, right after `sharedConstructor` had, with the same parameters: the ' +
        'same JSON copies and cache rebuild for the same result.',
      find: `        this.common.updateParams(opts.params ?? paramsTx); // TODO should this move higher?
`,
      replace: '',
    },
  ],
  'dist/esm/util/internal.js': [
    {
      why:
        'Every transaction made (decoded at admission, read back from a block) copied the ' +
        "`Common` it was given and brought the copy's parameters up to date with the " +
        "transaction parameters: a JSON copy of each EIP's parameters and a rebuild of the " +
        'parameter cache over every hardfork, some 30 us of the 45-55 a decode took. The copy ' +
        'is now made from one kept per `Common` given, already up to date, while that `Common` ' +
        'is unchanged.',
      find: `export function sharedConstructor(tx, txData, opts = {}) {
    // LOAD base tx super({ ...txData, type: TransactionType.Legacy }, opts)
    tx.common = getCommon(opts.common);
    tx.common.updateParams(opts.params ?? paramsTx);`,
      replace: TX_COMMON,
    },
  ],
  'dist/esm/util/intrinsic.js': [
    {
      why:
        'The EIP-7623 floor counted calldata tokens as a bigint, one bigint allocated per byte, ' +
        'and admission and `runTx` ask for the floor three times a transaction; the tokens are ' +
        'now counted as a number and converted once.',
      find: `        for (let i = 0; i < tx.data.length; i++) {
            tokens += tx.data[i] === 0 ? 1n : 4n;
        }`,
      replace: `        let count = 0;
        for (let i = 0; i < tx.data.length; i++) {
            count += tx.data[i] === 0 ? 1 : 4;
        }
        tokens = BigInt(count);`,
    },
  ],
};

/**
 * `encode` of `@ethereumjs/rlp` for a list in two passes over it: the first turns each item into
 * bytes (the library's `toBytes`) and measures every list, the second writes the whole encoding
 * into one array. A single item is encoded as before.
 */
export const RLP_LIST_ENCODE = `export function encode(input) {
    if (Array.isArray(input)) {
        const items = [];
        const payloads = [];
        const out = new Uint8Array(measureEncoding(input, items, payloads));
        writeEncoding(input, out, 0, { items, payloads, item: 0, payload: 0 });
        return out;
    }
    const inputBuf = toBytes(input);
    if (inputBuf.length === 1 && inputBuf[0] < 128) {
        return inputBuf;
    }
    return concatBytes(encodeLength(inputBuf.length, 128), inputBuf);
}
/** Bytes a length prefix takes. */
function prefixSize(length) {
    let size = 1;
    if (length >= 56) {
        for (let rest = length; rest > 0; rest = Math.floor(rest / 256))
            size++;
    }
    return size;
}
/** The encoded size of \`input\`; its items' bytes and its lists' payload sizes, in order. */
function measureEncoding(input, items, payloads) {
    if (Array.isArray(input)) {
        const slot = payloads.length;
        payloads.push(0);
        let payload = 0;
        for (let i = 0; i < input.length; i++)
            payload += measureEncoding(input[i], items, payloads);
        payloads[slot] = payload;
        return prefixSize(payload) + payload;
    }
    const bytes = toBytes(input);
    items.push(bytes);
    return bytes.length === 1 && bytes[0] < 128 ? 1 : prefixSize(bytes.length) + bytes.length;
}
/** Writes a length prefix at \`at\`; returns where what follows starts. */
function writePrefix(out, at, length, offset) {
    if (length < 56) {
        out[at] = offset + length;
        return at + 1;
    }
    const size = prefixSize(length) - 1;
    out[at] = offset + 55 + size;
    for (let index = at + size, rest = length; index > at; index--, rest = Math.floor(rest / 256))
        out[index] = rest % 256;
    return at + 1 + size;
}
/** Writes the encoding of \`input\` measured before at \`at\`; returns where it ends. */
function writeEncoding(input, out, at, plan) {
    if (Array.isArray(input)) {
        at = writePrefix(out, at, plan.payloads[plan.payload++], 192);
        for (let i = 0; i < input.length; i++)
            at = writeEncoding(input[i], out, at, plan);
        return at;
    }
    const bytes = plan.items[plan.item++];
    if (bytes.length === 1 && bytes[0] < 128) {
        out[at] = bytes[0];
        return at + 1;
    }
    at = writePrefix(out, at, bytes.length, 128);
    out.set(bytes, at);
    return at + bytes.length;
}`;

/** The version of `@ethereumjs/rlp` the edits of RLP_PATCHES were written against. */
export const PATCHED_RLP_VERSION = '10.1.3';

/** The edits, by file of `@ethereumjs/rlp` (its ES module build), as for the EVM. */
export const RLP_PATCHES = {
  'dist/esm/index.js': [
    {
      why:
        'A list was encoded by encoding each item into an array of its own, its length prefix ' +
        'into another (from a temporary JavaScript array), and concatenating them, level by ' +
        'level: receipts, trie nodes, accounts and transactions, about a tenth of an ERC-20 ' +
        "transfer's garbage on the main thread. Lists are now measured first and written into " +
        'one array, with the same bytes.',
      find: `export function encode(input) {
    if (Array.isArray(input)) {
        const output = [];
        let outputLength = 0;
        for (let i = 0; i < input.length; i++) {
            const encoded = encode(input[i]);
            output.push(encoded);
            outputLength += encoded.length;
        }
        return concatBytes(encodeLength(outputLength, 192), ...output);
    }
    const inputBuf = toBytes(input);
    if (inputBuf.length === 1 && inputBuf[0] < 128) {
        return inputBuf;
    }
    return concatBytes(encodeLength(inputBuf.length, 128), inputBuf);
}`,
      replace: RLP_LIST_ENCODE,
    },
  ],
};

/** Every patched package: its name, the version its edits fit, and the edits by file. */
export const PATCHED_PACKAGES = [
  { name: '@ethereumjs/evm', version: PATCHED_EVM_VERSION, patches: EVM_PATCHES },
  {
    name: '@ethereumjs/statemanager',
    version: PATCHED_STATE_MANAGER_VERSION,
    patches: STATE_MANAGER_PATCHES,
  },
  { name: '@ethereumjs/util', version: PATCHED_UTIL_VERSION, patches: UTIL_PATCHES },
  { name: '@ethereumjs/tx', version: PATCHED_TX_VERSION, patches: TX_PATCHES },
  { name: '@ethereumjs/rlp', version: PATCHED_RLP_VERSION, patches: RLP_PATCHES },
];

const require = createRequire(import.meta.url);

/** The directory of an installed package (their exports do not include package.json). */
export function packageDir(name) {
  return join(dirname(require.resolve(name)), '..', '..');
}

/** The directory of the installed `@ethereumjs/evm`. */
export function evmPackageDir() {
  return packageDir('@ethereumjs/evm');
}

/**
 * `source` of `file` (a key of `pkg.patches`, `pkg` one of PATCHED_PACKAGES) with its edits
 * made; throws if one does not fit.
 */
export function patchSource(pkg, file, source) {
  let patched = source;
  for (const edit of pkg.patches[file]) {
    const count = patched.split(edit.find).length - 1;
    if (count !== 1) {
      throw new Error(
        `${pkg.name} ${file}: the piece to patch occurs ${count} times (want 1); ` +
          `review scripts/ethereumjs-patches.js against the installed release. Edit: ${edit.why}`,
      );
    }
    patched = patched.replace(edit.find, () => edit.replace);
  }
  return patched;
}

/** `source` of `file` (a key of EVM_PATCHES) with its edits made; throws if one does not fit. */
export function patchEvmSource(file, source) {
  return patchSource(PATCHED_PACKAGES[0], file, source);
}

/** Fails unless the installed `pkg` (one of PATCHED_PACKAGES) is the version its edits fit. */
export function checkVersion(pkg, dir = packageDir(pkg.name)) {
  const { version } = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  if (version !== pkg.version) {
    throw new Error(
      `${pkg.name} is ${version}, scripts/ethereumjs-patches.js was written for ` +
        `${pkg.version}: review the edits against the new release`,
    );
  }
}

/** Fails unless the installed `@ethereumjs/evm` is the version the edits were written for. */
export function checkEvmVersion(dir = evmPackageDir()) {
  checkVersion(PATCHED_PACKAGES[0], dir);
}

/** Patched files as `<package>/<file>`, the names `applied()` reports. */
export function patchedFiles() {
  return PATCHED_PACKAGES.flatMap((pkg) =>
    Object.keys(pkg.patches).map((file) => `${pkg.name}/${file}`),
  );
}

/**
 * An esbuild plugin (`plugin`) that loads the patched files with their edits made, and the files
 * it has patched so far (`applied()`, as `<package>/<file>`), so a bundler can check that it
 * bundled the patched library.
 */
export function ethereumjsPatches() {
  const applied = new Set();
  const plugin = {
    name: 'ethereumjs-patches',
    setup(build) {
      for (const pkg of PATCHED_PACKAGES) {
        checkVersion(pkg);
        for (const file of Object.keys(pkg.patches)) {
          const tail = [...pkg.name.split('/'), ...file.split('/')].join('[\\\\/]');
          build.onLoad({ filter: new RegExp(`[\\\\/]${tail.replace(/\./g, '\\.')}$`) }, (args) => {
            applied.add(`${pkg.name}/${file}`);
            return {
              contents: patchSource(pkg, file, readFileSync(args.path, 'utf8')),
              loader: 'js',
              resolveDir: dirname(args.path),
            };
          });
        }
      }
    },
  };
  return { plugin, applied: () => [...applied] };
}
