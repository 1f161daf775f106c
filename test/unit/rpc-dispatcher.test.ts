import { describe, expect, it } from '@jest/globals';
import { ExecutionRevertedError, NotFoundError } from '../../src/shared/errors.js';
import { JsonText, RpcDispatcher } from '../../src/daemon/rpc/dispatcher.js';
import { replyString } from '../../src/daemon/rpc/reply.js';
import { MethodRegistry, defineMethod, type CallContext } from '../../src/daemon/rpc/registry.js';

const silent = { error: () => undefined, debug: () => undefined };

const double = defineMethod<[number]>({
  name: 'test_double',
  params: [{ name: 'value', schema: { type: 'integer', description: 'an integer' } }],
  handler: ([value]) => value * 2,
});

function dispatcher(enabled = ['test']) {
  const registry = new MethodRegistry(new Set(enabled)).register({
    namespace: 'test',
    access: 'public',
    methods: [
      double,
      defineMethod<[]>({
        name: 'test_crash',
        params: [],
        handler: () => {
          throw new TypeError('boom');
        },
      }),
      defineMethod<[]>({
        name: 'test_revert',
        params: [],
        handler: () => {
          throw new ExecutionRevertedError('0x08c379a0', 'nope');
        },
      }),
      defineMethod<[]>({
        name: 'test_missing',
        params: [],
        handler: () => {
          throw new NotFoundError('filter not found');
        },
      }),
      defineMethod<[]>({
        name: 'test_unwritable',
        params: [],
        handler: () => ({ big: 1n }),
      }),
      defineMethod<[]>({
        name: 'test_unwritableLater',
        params: [],
        handler: () => Promise.resolve({ big: 1n }),
      }),
      defineMethod<[]>({
        name: 'test_sign',
        params: [],
        access: 'loopback-or-token',
        handler: () => 'signed',
      }),
    ],
  });
  return new RpcDispatcher(
    registry,
    { batchRequestLimit: 10, batchResponseMaxSize: 10_000, maxNesting: 128 },
    silent,
  );
}

const remote: CallContext = {
  transport: 'http',
  authenticated: false,
  loopback: false,
  remoteAddress: '203.0.113.9',
};
const local: CallContext = { ...remote, loopback: true, remoteAddress: '127.0.0.1' };

async function ask(text: string, context = remote, enabled?: string[]) {
  const reply = await dispatcher(enabled).handleText(text, context);
  return reply === undefined ? undefined : JSON.parse(replyString(reply));
}

describe('RpcDispatcher', () => {
  it('calls a method with validated params and echoes the id', async () => {
    expect(await ask('{"jsonrpc":"2.0","id":"x","method":"test_double","params":[21]}')).toEqual({
      jsonrpc: '2.0',
      id: 'x',
      result: 42,
    });
  });

  it('echoes numeric ids as written, where a JavaScript number would change them', async () => {
    const text = async (body: string) => {
      const reply = await dispatcher().handleText(body, remote);
      return reply === undefined ? undefined : replyString(reply);
    };
    expect(
      await text('{"jsonrpc":"2.0","id":18446744073709551615,"method":"test_double","params":[1]}'),
    ).toBe('{"jsonrpc":"2.0","id":18446744073709551615,"result":2}');
    expect(await text('{"id" : 1.50, "jsonrpc":"2.0","method":"test_crash"}')).toBe(
      '{"jsonrpc":"2.0","id":1.50,"error":{"code":-32603,"message":"internal error"}}',
    );
    // In a batch, each request its own; safe ids and strings as JSON writes them.
    const batch = await text(
      '[{"jsonrpc":"2.0","id":12345678901234567890123,"method":"test_double","params":[{"id":1}]},' +
        '{"jsonrpc":"2.0","id":"9007199254740993","method":"test_missing"},' +
        '{"jsonrpc":"2.0","id":7,"method":"test_double","params":[2]}]',
    );
    expect(batch).toContain('"id":12345678901234567890123,"error"');
    expect(batch).toContain('"id":"9007199254740993","error"');
    expect(batch).toContain('"id":7,"result":4');
  });

  it('maps an unexpected exception to -32603 without leaking its message', async () => {
    expect(await ask('{"jsonrpc":"2.0","id":1,"method":"test_crash"}')).toEqual({
      jsonrpc: '2.0',
      id: 1,
      error: { code: -32603, message: 'internal error' },
    });
  });

  it('answers a result it cannot write as -32603 with the id, from sync and async handlers', async () => {
    for (const method of ['test_unwritable', 'test_unwritableLater']) {
      expect(await ask(`{"jsonrpc":"2.0","id":7,"method":"${method}"}`)).toEqual({
        jsonrpc: '2.0',
        id: 7,
        error: { code: -32603, message: 'internal error' },
      });
    }
  });

  it('maps a revert to code 3 with the revert data', async () => {
    expect(await ask('{"jsonrpc":"2.0","id":1,"method":"test_revert"}')).toEqual({
      jsonrpc: '2.0',
      id: 1,
      error: { code: 3, message: 'execution reverted: nope', data: '0x08c379a0' },
    });
  });

  it('maps other node errors to -32000', async () => {
    expect((await ask('{"jsonrpc":"2.0","id":1,"method":"test_missing"}')).error).toEqual({
      code: -32000,
      message: 'filter not found',
    });
  });

  it('names the parameter that failed validation', async () => {
    expect(
      (await ask('{"jsonrpc":"2.0","id":1,"method":"test_double","params":["2"]}')).error,
    ).toEqual({
      code: -32602,
      message: 'invalid params: argument 0 (value): must be an integer',
    });
  });

  it('serves key-using methods to loopback or authenticated callers only', async () => {
    const request = '{"jsonrpc":"2.0","id":1,"method":"test_sign"}';
    expect((await ask(request, remote)).error).toEqual({
      code: -32001,
      message: 'unauthorized: test_sign requires authentication',
    });
    expect((await ask(request, local)).result).toBe('signed');
    expect((await ask(request, { ...remote, authenticated: true })).result).toBe('signed');
  });

  it('treats methods of disabled namespaces as not available', async () => {
    expect(
      (await ask('{"jsonrpc":"2.0","id":1,"method":"test_double","params":[1]}', remote, [])).error,
    ).toEqual({
      code: -32601,
      message:
        'the method test_double does not exist/is not available (namespace "test" is not enabled by --evm.rpc.api)',
    });
  });

  it('runs notifications without answering them, even when they fail', async () => {
    expect(await ask('{"jsonrpc":"2.0","method":"test_crash"}')).toBeUndefined();
    expect(await ask('[{"jsonrpc":"2.0","method":"test_double","params":[1]}]')).toBeUndefined();
  });

  it('sends a result the handler serialised itself as it is', async () => {
    const registry = new MethodRegistry(new Set(['test'])).register({
      namespace: 'test',
      access: 'public',
      methods: [
        defineMethod<[]>({
          name: 'test_json',
          params: [],
          handler: () => new JsonText(['[{"a":1},{"b":"é"}]']),
        }),
      ],
    });
    const reply = await new RpcDispatcher(
      registry,
      { batchRequestLimit: 10, batchResponseMaxSize: 10_000, maxNesting: 128 },
      silent,
    ).handleText('{"jsonrpc":"2.0","id":4,"method":"test_json"}', remote);
    expect(reply).toBe('{"jsonrpc":"2.0","id":4,"result":[{"a":1},{"b":"é"}]}');
  });

  it('starts neighbouring overlapping calls of a batch in order and awaits them together; others one at a time', async () => {
    const events: string[] = [];
    // Each call finishes only after two turns of the microtask queue, so calls that overlap
    // start before the earlier ones finish; calls that do not, after.
    const step =
      (name: string) =>
      async ([label]: [string]) => {
        events.push(`start ${label}`);
        await Promise.resolve();
        await Promise.resolve();
        events.push(`end ${label}`);
        return `${name} ${label}`;
      };
    const registry = new MethodRegistry(new Set(['test'])).register({
      namespace: 'test',
      access: 'public',
      methods: [
        defineMethod<[string]>({
          name: 'test_overlap',
          params: [{ name: 'label', schema: { type: 'string', description: 'a label' } }],
          overlapsInBatch: true,
          handler: step('overlap'),
        }),
        defineMethod<[string]>({
          name: 'test_serial',
          params: [{ name: 'label', schema: { type: 'string', description: 'a label' } }],
          handler: step('serial'),
        }),
      ],
    });
    const call = (id: number, method: string, label: string) => ({
      jsonrpc: '2.0',
      id,
      method,
      params: [label],
    });
    const batch = [
      call(1, 'test_overlap', 'a'),
      call(2, 'test_overlap', 'b'),
      call(3, 'test_serial', 'c'),
      call(4, 'test_overlap', 'd'),
      call(5, 'test_overlap', 'e'),
      call(6, 'test_serial', 'f'),
    ];
    const reply = await new RpcDispatcher(
      registry,
      { batchRequestLimit: 10, batchResponseMaxSize: 10_000, maxNesting: 128 },
      silent,
    ).handleText(JSON.stringify(batch), remote);
    expect(JSON.parse(reply as string)).toEqual(
      batch.map(({ id, method, params }) => ({
        jsonrpc: '2.0',
        id,
        result: `${method.slice(5)} ${params[0]}`,
      })),
    );
    expect(events).toEqual([
      'start a',
      'start b',
      'end a',
      'end b',
      'start c',
      'end c',
      'start d',
      'start e',
      'end d',
      'end e',
      'start f',
      'end f',
    ]);
  });

  it("lets other calls be answered between a batch's calls, and keeps the batch's order", async () => {
    let pauses = 0;
    const paced = new RpcDispatcher(
      new MethodRegistry(new Set(['test'])).register({
        namespace: 'test',
        access: 'public',
        methods: [double],
      }),
      { batchRequestLimit: 10, batchResponseMaxSize: 10_000, maxNesting: 128 },
      silent,
      undefined,
      () => {
        pauses++;
        return new Promise((resolve) => setImmediate(resolve));
      },
    );
    const batch = [1, 2, 3, 4, 5].map((value) => ({
      jsonrpc: '2.0',
      id: value,
      method: 'test_double',
      params: [value],
    }));
    const answered: string[] = [];
    const batchReply = Promise.resolve(paced.handleText(JSON.stringify(batch), remote)).then(
      (reply) => {
        answered.push('batch');
        return reply;
      },
    );
    await new Promise((resolve) => setImmediate(resolve));
    const single = paced.handleText(
      JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'test_double', params: [9] }),
      remote,
    );
    answered.push('single');
    expect(JSON.parse(single as string).result).toBe(18);
    expect(
      JSON.parse((await batchReply) as string).map((r: { result: number }) => r.result),
    ).toEqual([2, 4, 6, 8, 10]);
    expect(answered).toEqual(['single', 'batch']);
    expect(pauses).toBe(batch.length);
  });

  it('tells the size of each result served and counts the messages still being answered', async () => {
    const rpc = dispatcher();
    const sizes: number[] = [];
    rpc.onResult((chars) => sizes.push(chars));
    rpc.handleText('{"jsonrpc":"2.0","id":1,"method":"test_double","params":[500]}', remote);
    const batch = rpc.handleText(
      '[{"jsonrpc":"2.0","id":2,"method":"test_double","params":[5]},' +
        '{"jsonrpc":"2.0","method":"test_double","params":[6]},' +
        '{"jsonrpc":"2.0","id":3,"method":"test_crash","params":[]}]',
      remote,
    );
    expect(rpc.inFlight).toBe(1);
    await batch;
    expect(rpc.inFlight).toBe(0);
    // '1000', then '10'; neither the notification's result nor the failure is an answer.
    expect(sizes).toEqual([4, 2]);
  });
});
