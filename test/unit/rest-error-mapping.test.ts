import { describe, expect, it } from '@jest/globals';
import { restErrorOf } from '../../src/daemon/rest/error-mapping.js';
import { toRpcError } from '../../src/daemon/rpc/error-mapping.js';
import { DamagedStoreError, NotFoundError, ServerError } from '../../src/shared/errors.js';

const MAX_BODY = 1024;

/** An error as lmdb-js throws it when a page pointer in the file leads nowhere. */
function lmdbPageNotFound(): Error {
  return Object.assign(new Error('MDB_PAGE_NOTFOUND: Requested page not found'), {
    code: -30797,
  });
}

describe('REST error mapping', () => {
  it('keeps the message of an ordinary 500 out of the answer', () => {
    expect(restErrorOf(new ServerError('lock file /secret/path busy'), MAX_BODY)).toEqual({
      status: 500,
      body: { error: { code: 500, message: 'internal error' } },
    });
    expect(restErrorOf(new TypeError('x is undefined'), MAX_BODY).body.error.message).toBe(
      'internal error',
    );
  });

  it('shows what a damaged store is and what to do, as a 500', () => {
    const damaged = new DamagedStoreError(
      'the chain store holds a damaged record of block 2, which cannot be read',
    );
    expect(restErrorOf(damaged, MAX_BODY)).toEqual({
      status: 500,
      body: { error: { code: 500, message: damaged.message } },
    });
  });

  it('tells a read LMDB refused as damage, over REST and JSON-RPC alike', () => {
    const rest = restErrorOf(lmdbPageNotFound(), MAX_BODY);
    expect(rest.status).toBe(500);
    expect(rest.body.error.message).toMatch(
      /^a store of the data directory cannot be read \(MDB_PAGE_NOTFOUND: .*\): it is damaged\. node-cli daemon check/,
    );
    const logged: unknown[] = [];
    const rpc = toRpcError(lmdbPageNotFound(), (error) => logged.push(error));
    expect(rpc.code).toBe(-32000);
    expect(rpc.message).toBe(rest.body.error.message);
    expect(logged).toHaveLength(1);
  });

  it('answers the classes with a status of their own as before', () => {
    expect(restErrorOf(new NotFoundError('no file abc'), MAX_BODY)).toEqual({
      status: 404,
      body: { error: { code: 404, message: 'no file abc' } },
    });
  });
});
