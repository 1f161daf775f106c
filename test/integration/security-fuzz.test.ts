/**
 * Fuzzes every JSON-RPC method the daemon serves (security issue #20): requests generated from
 * a seeded PRNG, shaped by each method's parameter schemas and mixed with boundary and garbage
 * values, go to a real daemon over HTTP and WebSocket, with the token (private methods
 * included). Every answer must be a well-formed JSON-RPC response; none may be -32603 or carry
 * library or runtime text; the daemon must answer eth_blockNumber at the end.
 *
 * The run is bounded by FUZZ_TIME_BUDGET_MS and FUZZ_MAX_REQUESTS; FUZZ_SEED fixes the
 * sequence (set the environment variable of the same name to explore another one).
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import WebSocket from 'ws';
import { MAX_MINED_BLOCKS } from '../../src/daemon/dev/dev-control.js';
import { daemonLogText } from '../helpers/daemon-log.js';
import { ParamFuzzer, seededRandom, servedMethods } from '../helpers/param-fuzzer.js';
import { threadStates, within } from '../helpers/processes.js';
import { startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';

const FUZZ_SEED = Number(process.env.FUZZ_SEED ?? 20_2026);
/** Wall-clock budget of the request loop (the daemon's start and stop come on top). */
const FUZZ_TIME_BUDGET_MS = 75_000;
const FUZZ_MAX_REQUESTS = 12_000;
/** Requests in flight at once. */
const CONCURRENCY = 6;
/** One round in this many sends a single request over the WebSocket. */
const WS_SHARE = 4;
/** One round in this many sends a batch of two to four requests over HTTP. */
const BATCH_SHARE = 15;

/**
 * Text that only an exception, a stack or EthereumJS's own checks put in a message. Messages
 * may quote the caller's input, and the fuzzer's inputs contain none of these words.
 */
const LEAK =
  /TypeError|ReferenceError|RangeError|SyntaxError|Cannot read|undefined|node_modules|\.ts:\d|\.js:\d|\n\s*at |EthereumJS|MAX_UINT|MAX_INTEGER|cannot exceed|\(tx type=|hf=/;

/**
 * Methods left out, and why: personal_lockAccount would lock the dev accounts, and every later
 * eth_sign, eth_sendTransaction, eth_signTransaction would stop at "authentication needed"
 * before reaching the code worth fuzzing (accounts.test.ts covers locking). personal_newAccount
 * and personal_importRawKey run scrypt, so the daemon runs with --keystore.light-kdf to keep
 * them cheap. The debug methods below hold their request for as long as asked (up to an hour),
 * leave a recording running, or write a heap snapshot of tens of MB per call;
 * debug-runtime.test.ts covers their parameters.
 */
const EXCLUDED = new Set([
  'personal_lockAccount',
  'debug_cpuProfile',
  'debug_blockProfile',
  'debug_mutexProfile',
  'debug_goTrace',
  'debug_startCPUProfile',
  'debug_startGoTrace',
  'debug_writeMemProfile',
]);

/**
 * Longest a fuzzed request waits for its answer. Past it the request is a finding that names its
 * method and parameters, where a test timeout would name nothing; the request loop's budget
 * plus this stays below the test's timeout.
 */
const ANSWER_DEADLINE_MS = 45_000;
const NO_ANSWER = `no answer within ${ANSWER_DEADLINE_MS / 1000} s`;

/** What `pending` resolves to, or {@link NO_ANSWER} once `deadlineMs` have passed. */
function answerWithin<T>(
  pending: Promise<T>,
  deadlineMs = ANSWER_DEADLINE_MS,
): Promise<T | typeof NO_ANSWER> {
  return within(pending, deadlineMs, NO_ANSWER);
}

/** Methods whose first parameter is a count of blocks to mine, each a committed block. */
const MINING = new Set(['anvil_mine', 'hardhat_mine']);
/** Most blocks one fuzzed mining call makes. */
const FUZZ_MINED_BLOCKS = 64n;

/**
 * A mining call's block count brought within {@link FUZZ_MINED_BLOCKS} when the node would
 * accept it: up to MAX_MINED_BLOCKS is a legitimate call that takes as long as that many blocks
 * (seconds for a few thousand, minutes on a loaded two-core machine), which would hold a
 * worker past the time budget. Counts over the limit stay, so its refusal is fuzzed too.
 */
function boundMining(method: string, params: unknown): unknown {
  if (!MINING.has(method) || !Array.isArray(params)) return params;
  const [first, ...rest] = params as unknown[];
  // Only well-formed counts: a malformed one is refused at once and stays as fuzzed.
  const count =
    typeof first === 'string' && /^0x(0|[1-9a-f][0-9a-f]*)$/.test(first)
      ? BigInt(first)
      : Number.isSafeInteger(first)
        ? BigInt(first as number)
        : undefined;
  if (count === undefined || count <= FUZZ_MINED_BLOCKS || count > BigInt(MAX_MINED_BLOCKS)) {
    return params;
  }
  return [`0x${(count % FUZZ_MINED_BLOCKS).toString(16)}`, ...rest];
}

interface FuzzCall {
  id: number;
  method: string;
  params: unknown;
  request: Record<string, unknown>;
}

interface Finding {
  method: string;
  params: unknown;
  problem: string;
  answer: unknown;
}

function checkAnswer(answer: unknown, id: number): string | undefined {
  if (typeof answer !== 'object' || answer === null || Array.isArray(answer)) {
    return 'not a JSON-RPC response object';
  }
  const response = answer as Record<string, unknown>;
  if (response.jsonrpc !== '2.0') return 'jsonrpc is not "2.0"';
  if (response.id !== id) return `id ${JSON.stringify(response.id)} is not ${id}`;
  if ('result' in response === 'error' in response) return 'not exactly one of result and error';
  if (!('error' in response)) return undefined;
  const error = response.error as Record<string, unknown> | null;
  if (typeof error !== 'object' || error === null) return 'error is not an object';
  if (!Number.isInteger(error.code)) return 'error code is not an integer';
  if (typeof error.message !== 'string') return 'error message is not a string';
  if (error.code === -32603) return '-32603';
  if (LEAK.test(error.message)) return 'internal text in the message';
  if (typeof error.data === 'string' && LEAK.test(error.data)) return 'internal text in data';
  return undefined;
}

/** A WebSocket connection that matches answers to requests by id. */
class FuzzSocket {
  private readonly pending = new Map<number, (answer: unknown) => void>();

  private constructor(private readonly socket: WebSocket) {
    socket.on('message', (data) => {
      const answer = JSON.parse(String(data)) as { id?: unknown; method?: string };
      if (answer.method === 'eth_subscription') return;
      if (answer.id === null) {
        // An answer no request can be matched to: every waiting one gets it, and is reported.
        for (const resolve of this.pending.values()) resolve(answer);
        this.pending.clear();
        return;
      }
      const resolve = this.pending.get(answer.id as number);
      this.pending.delete(answer.id as number);
      resolve?.(answer);
    });
    socket.on('close', () => {
      for (const resolve of this.pending.values()) resolve('connection closed');
      this.pending.clear();
    });
  }

  static async open(url: string, token: string): Promise<FuzzSocket> {
    const socket = new WebSocket(url, { headers: { authorization: `Bearer ${token}` } });
    await new Promise((resolve, reject) => {
      socket.once('open', resolve);
      socket.once('error', reject);
    });
    return new FuzzSocket(socket);
  }

  get open(): boolean {
    return this.socket.readyState === WebSocket.OPEN;
  }

  send(body: string, id: number): Promise<unknown> {
    return new Promise((resolve) => {
      this.pending.set(id, resolve);
      this.socket.send(body);
    });
  }

  close(): void {
    this.socket.close();
  }
}

describe('JSON-RPC fuzzing (security #20)', () => {
  let daemon: TestDaemon;

  beforeAll(async () => {
    daemon = await startTestDaemon(['--keystore.light-kdf']);
  });

  const describeDaemon = async () => {
    const fresh = await answerWithin(
      daemon.rpc.post(JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'eth_blockNumber' })),
      5_000,
    );
    const log = daemonLogText(daemon.dataDir).split('\n').slice(-40).join('\n');
    return `threads: ${await threadStates(daemon.pid)}\neth_blockNumber then: ${JSON.stringify(fresh === NO_ANSWER ? fresh : fresh.body)}\nlast log lines:\n${log}`;
  };

  afterAll(async () => {
    await daemon?.stop();
  });

  it(
    'answers every fuzzed request with a well-formed response, never -32603 nor internal text, and stays up',
    async () => {
      const methods = servedMethods().filter((method) => !EXCLUDED.has(method.name));
      const accounts = await daemon.authedRpc.call<string[]>('eth_accounts');
      const fuzzer = new ParamFuzzer(FUZZ_SEED, accounts);
      const choose = seededRandom(FUZZ_SEED + 1);
      let socket = await FuzzSocket.open(daemon.endpoints.ws, daemon.token);

      const findings: Finding[] = [];
      const perMethod = new Map<string, number>();
      const codes = new Map<string, number>();
      let sent = 0;
      let overWs = 0;
      let batches = 0;
      let rounds = 0;
      const started = Date.now();
      const keepGoing = () =>
        sent < FUZZ_MAX_REQUESTS && Date.now() - started < FUZZ_TIME_BUDGET_MS;

      const nextCall = (): FuzzCall => {
        const method = methods[Math.floor(choose() * methods.length)];
        const params = boundMining(method.name, fuzzer.paramsFor(method.params));
        const id = ++sent;
        const request: Record<string, unknown> = { jsonrpc: '2.0', id, method: method.name };
        if (params !== undefined) request.params = params;
        return { id, method: method.name, params, request };
      };
      let stuck: Promise<string> | undefined;
      const record = (call: FuzzCall, answer: unknown) => {
        // What the daemon was doing when it first left a request unanswered.
        if (answer === NO_ANSWER) stuck ??= describeDaemon();
        perMethod.set(call.method, (perMethod.get(call.method) ?? 0) + 1);
        const error = (answer as { error?: { code?: unknown } } | null)?.error;
        const outcome = error === undefined ? 'result' : String(error.code);
        codes.set(outcome, (codes.get(outcome) ?? 0) + 1);
        const problem = checkAnswer(answer, call.id);
        if (problem !== undefined) {
          findings.push({ method: call.method, params: call.params, problem, answer });
        }
      };

      const worker = async () => {
        while (keepGoing()) {
          rounds++;
          if (rounds % BATCH_SHARE === 0) {
            const calls = Array.from({ length: 2 + Math.floor(choose() * 3) }, nextCall);
            batches++;
            const posted = await answerWithin(
              daemon.authedRpc.post(JSON.stringify(calls.map((c) => c.request))),
            );
            const answers = posted === NO_ANSWER ? posted : posted.body;
            for (const call of calls) {
              const answer = Array.isArray(answers)
                ? answers.find((item: { id?: unknown } | null) => item?.id === call.id)
                : answers;
              record(call, answer);
            }
          } else if (rounds % WS_SHARE === 0) {
            const call = nextCall();
            if (!socket.open) socket = await FuzzSocket.open(daemon.endpoints.ws, daemon.token);
            overWs++;
            record(call, await answerWithin(socket.send(JSON.stringify(call.request), call.id)));
          } else {
            const call = nextCall();
            const posted = await answerWithin(daemon.authedRpc.post(JSON.stringify(call.request)));
            record(call, posted === NO_ANSWER ? posted : posted.body);
          }
        }
      };
      await Promise.all(Array.from({ length: CONCURRENCY }, worker));
      socket.close();

      const elapsed = Date.now() - started;
      console.log(
        `fuzz seed ${FUZZ_SEED}: ${sent} requests (${overWs} over WebSocket, ${batches} batches over HTTP) to ${perMethod.size} of ${methods.length} methods in ${elapsed} ms; answers by code ${JSON.stringify(Object.fromEntries([...codes].sort()))}; ${findings.length} findings`,
      );
      if (stuck !== undefined)
        console.log(`daemon at the first unanswered request: ${await stuck}`);
      for (const finding of findings.slice(0, 20)) {
        console.log(
          `finding: ${finding.method} ${finding.problem}: ${JSON.stringify(finding.params)?.slice(0, 300)} -> ${JSON.stringify(finding.answer)?.slice(0, 300)}`,
        );
      }
      expect(findings).toEqual([]);
      expect(perMethod.size).toBe(methods.length);
      expect(typeof (await daemon.rpc.call('eth_blockNumber'))).toBe('string');
    },
    FUZZ_TIME_BUDGET_MS + 60_000,
  );
});
