import { describe, expect, it } from '@jest/globals';
import { ExecutionRevertedError, NotFoundError } from '../../src/daemon/errors.js';
import { JsonText, RpcDispatcher, type ForwardedCall } from '../../src/daemon/rpc/dispatcher.js';
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
        name: 'test_sign',
        params: [],
        access: 'loopback-or-token',
        handler: () => 'signed',
      }),
    ],
  });
  return new RpcDispatcher(
    registry,
    { batchRequestLimit: 10, batchResponseMaxSize: 10_000 },
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
  return reply === undefined ? undefined : JSON.parse(reply);
}

describe('RpcDispatcher', () => {
  it('calls a method with validated params and echoes the id', async () => {
    expect(await ask('{"jsonrpc":"2.0","id":"x","method":"test_double","params":[21]}')).toEqual({
      jsonrpc: '2.0',
      id: 'x',
      result: 42,
    });
  });

  it('maps an unexpected exception to -32603 without leaking its message', async () => {
    expect(await ask('{"jsonrpc":"2.0","id":1,"method":"test_crash"}')).toEqual({
      jsonrpc: '2.0',
      id: 1,
      error: { code: -32603, message: 'internal error' },
    });
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

  describe('passing calls on', () => {
    /** A dispatcher serving only test_double, passing the rest to the full one. */
    function front(forwarded: ForwardedCall[], main = dispatcher()) {
      const registry = new MethodRegistry(new Set(['test'])).register({
        namespace: 'test',
        access: 'public',
        methods: [double],
      });
      return new RpcDispatcher(
        registry,
        { batchRequestLimit: 10, batchResponseMaxSize: 10_000 },
        silent,
        (call) => {
          forwarded.push(call);
          return main.answerForwarded(call);
        },
      );
    }

    it('answers its own methods and passes the others on with the caller context', async () => {
      const forwarded: ForwardedCall[] = [];
      const reply = await front(forwarded).handleText(
        JSON.stringify([
          { jsonrpc: '2.0', id: 1, method: 'test_double', params: [2] },
          { jsonrpc: '2.0', id: 'b', method: 'test_sign', params: [] },
          { jsonrpc: '2.0', id: 3, method: 'test_revert', params: [] },
          { jsonrpc: '2.0', id: 4, method: 'test_nothing', params: [] },
          { jsonrpc: '2.0', method: 'test_missing', params: [] },
        ]),
        { ...local, connection: { id: 'c', notify: () => true, onClose: () => undefined } },
      );
      expect(JSON.parse(reply as string)).toEqual([
        { jsonrpc: '2.0', id: 1, result: 4 },
        { jsonrpc: '2.0', id: 'b', result: 'signed' },
        {
          jsonrpc: '2.0',
          id: 3,
          error: { code: 3, message: 'execution reverted: nope', data: '0x08c379a0' },
        },
        {
          jsonrpc: '2.0',
          id: 4,
          error: {
            code: -32601,
            message: 'the method test_nothing does not exist/is not available',
          },
        },
      ]);
      expect(forwarded.map((call) => call.method)).toEqual([
        'test_sign',
        'test_revert',
        'test_nothing',
        'test_missing',
      ]);
      expect(forwarded[0].context).toEqual(local);
    });

    it('leaves access control and parameter checks of passed-on calls to the other side', async () => {
      const reply = await front([]).handleText(
        '{"jsonrpc":"2.0","id":7,"method":"test_sign","params":[]}',
        remote,
      );
      expect(JSON.parse(reply as string).error.code).toBe(-32001);
      const main = dispatcher();
      expect(
        await main.answerForwarded({ method: 'test_double', params: ['x'], context: remote }),
      ).toEqual({
        error: JSON.stringify({
          code: -32602,
          message: 'invalid params: argument 0 (value): must be an integer',
        }),
      });
    });

    it('answers -32603 when the other side cannot be reached', async () => {
      const registry = new MethodRegistry(new Set(['test']));
      const broken = new RpcDispatcher(
        registry,
        { batchRequestLimit: 10, batchResponseMaxSize: 10_000 },
        silent,
        () => Promise.reject(new Error('thread gone')),
      );
      const reply = await broken.handleText('{"jsonrpc":"2.0","id":1,"method":"test_x"}', local);
      expect(JSON.parse(reply as string).error).toEqual({
        code: -32603,
        message: 'internal error',
      });
    });
  });

  it('sends a result the handler serialised itself as it is', async () => {
    const registry = new MethodRegistry(new Set(['test'])).register({
      namespace: 'test',
      access: 'public',
      methods: [
        defineMethod<[]>({
          name: 'test_json',
          params: [],
          handler: () => new JsonText('[{"a":1},{"b":"é"}]'),
        }),
      ],
    });
    const reply = await new RpcDispatcher(
      registry,
      { batchRequestLimit: 10, batchResponseMaxSize: 10_000 },
      silent,
    ).handleText('{"jsonrpc":"2.0","id":4,"method":"test_json"}', remote);
    expect(reply).toBe('{"jsonrpc":"2.0","id":4,"result":[{"a":1},{"b":"é"}]}');
  });
});
