/**
 * The transport-agnostic JSON-RPC 2.0 core: takes the text of one message (a call or a batch),
 * returns the text to send back (or nothing, for notifications). Envelope checks, batches,
 * access control, parameter validation and error conversion all happen here, once, for every
 * transport.
 */
import { idTextOf, noteExactIds } from './exact-ids.js';
import { DamagedStoreError } from '../../shared/errors.js';
import { WarningThrottle } from '../log/warning-throttle.js';
import { validateParams } from './params.js';
import { toRpcError } from './error-mapping.js';
import { exceedsJsonDepth, nestingTooDeepMessage } from './json-depth.js';
import { RpcError, RpcErrorCode } from './rpc-error.js';
import type { CallContext, MethodRegistry } from './registry.js';
import type { Pause } from '../time-slice.js';
import { batchReply, replyLength, resultReply, type Reply } from './reply.js';

/**
 * Where the dispatcher reports each call it answered (`metrics/recorder.ts` implements it);
 * `now` gives the start of a call, 0 when nothing is measured.
 */
export interface CallObserver {
  now(): number;
  /** `method` is '' for a message that is not a call; `errorCode` undefined for a success. */
  rpcCall(method: string, errorCode: number | undefined, startedAt: number): void;
}

const UNOBSERVED: CallObserver = { now: () => 0, rpcCall: () => undefined };

export type RpcId = string | number | null;

export type MaybePromise<T> = T | Promise<T>;

export interface DispatcherLimits {
  /** Most calls in one batch (`--json-rpc.batch-request-limit`). */
  batchRequestLimit: number;
  /** Largest total response of one batch, in bytes (`--json-rpc.batch-response-max-size`). */
  batchResponseMaxSize: number;
  /** Deepest nesting of arrays and objects in a message (`--json-rpc.max-nesting`). */
  maxNesting: number;
}

export interface DispatcherLogger {
  error(message: string, details?: Record<string, unknown>): void;
  /** Refused tokens and limits hit, throttled per method. */
  warn?(message: string, details?: Record<string, unknown>): void;
  debug(message: string, details?: Record<string, unknown>): void;
}

interface Envelope {
  /** The id's JSON text as the request wrote it (`exact-ids.ts`). */
  idText: string;
  /** No id member: a notification, which gets no response. */
  isNotification: boolean;
  method: string;
  params: unknown;
}

/**
 * A result a handler has already serialised: sent as it is. For large results assembled from
 * pieces the handler keeps in JSON form (logs).
 */
export class JsonText {
  /** @param pieces the text, in pieces that follow one another (`reply.ts`) */
  constructor(readonly pieces: readonly string[]) {}
}

/** The JSON text of a handler's result. */
function resultText(result: unknown): Reply {
  if (!(result instanceof JsonText)) return JSON.stringify(result ?? null);
  return result.pieces.length === 1 ? result.pieces[0]! : result.pieces;
}

/** The error answer under the id whose JSON text is `idText`. */
function errorResponse(idText: string, error: RpcError): string {
  return `{"jsonrpc":"2.0","id":${idText},"error":${JSON.stringify(error.toJSON())}}`;
}

function isValidId(id: unknown): id is RpcId {
  return id === null || typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id));
}

export class RpcDispatcher {
  private readonly warnings: WarningThrottle;
  private resultListener: ((chars: number) => void) | undefined;
  private answering = 0;

  constructor(
    private readonly registry: MethodRegistry,
    private readonly limits: DispatcherLimits,
    private readonly logger: DispatcherLogger,
    private readonly observer: CallObserver = UNOBSERVED,
    /** Asked between a batch's calls whether to let the event loop run (`../time-slice.ts`). */
    private readonly pause: Pause = () => undefined,
  ) {
    this.warnings = new WarningThrottle((message, details) => logger.warn?.(message, details));
  }

  /** Tells `listener` the length of each result served, in characters of its JSON text. */
  onResult(listener: (chars: number) => void): void {
    this.resultListener = listener;
  }

  /** Messages whose answer is still being worked out (asynchronously). */
  get inFlight(): number {
    return this.answering;
  }

  /**
   * Handles one message and gives the response text, or undefined when none is due. A single
   * call whose handler answers synchronously is answered synchronously, so cheap methods do not
   * pay for a chain of promises.
   */
  handleText(text: string, context: CallContext): MaybePromise<Reply | undefined> {
    const startedAt = this.observer.now();
    if (exceedsJsonDepth(text, this.limits.maxNesting)) {
      return this.refused(
        new RpcError(
          RpcErrorCode.invalidRequest,
          nestingTooDeepMessage(this.limits.maxNesting, '--json-rpc.max-nesting'),
        ),
        startedAt,
      );
    }
    let message: unknown;
    try {
      message = JSON.parse(text);
    } catch {
      return this.refused(
        new RpcError(RpcErrorCode.parseError, 'parse error: request body is not valid JSON'),
        startedAt,
      );
    }
    noteExactIds(message, text);
    const reply = Array.isArray(message)
      ? this.handleBatch(message, context)
      : this.handleSingle(message, context);
    if (!(reply instanceof Promise)) return reply;
    this.answering += 1;
    return reply.finally(() => {
      this.answering -= 1;
    });
  }

  /** The answer to a message that is not a call (or a batch refused whole), reported as such. */
  private refused(error: RpcError, startedAt: number): string {
    this.observer.rpcCall('', error.code, startedAt);
    return errorResponse('null', error);
  }

  private async handleBatch(calls: unknown[], context: CallContext): Promise<Reply | undefined> {
    const startedAt = this.observer.now();
    if (calls.length === 0) {
      return this.refused(
        new RpcError(RpcErrorCode.invalidRequest, 'invalid request: empty batch'),
        startedAt,
      );
    }
    if (calls.length > this.limits.batchRequestLimit) {
      const error = new RpcError(
        RpcErrorCode.limitExceeded,
        `batch too large: ${calls.length} calls exceed the limit of ${this.limits.batchRequestLimit} (--json-rpc.batch-request-limit)`,
      );
      this.reportRefusal('batch', error, context);
      return this.refused(error, startedAt);
    }
    const responses: Reply[] = [];
    let size = 2;
    for (const response of await this.runBatch(calls, context)) {
      if (response.text === undefined) continue;
      const { call } = response;
      const length = replyLength(response.text);
      if (size + length + 1 > this.limits.batchResponseMaxSize) {
        const id = (call as { id?: unknown }).id;
        const error = new RpcError(
          RpcErrorCode.limitExceeded,
          `batch response too large: exceeds ${this.limits.batchResponseMaxSize} bytes (--json-rpc.batch-response-max-size)`,
        );
        this.reportRefusal('batch', error, context);
        responses.push(errorResponse(isValidId(id) ? idTextOf(call) : 'null', error));
        continue;
      }
      size += length + 1;
      responses.push(response.text);
    }
    return responses.length === 0 ? undefined : batchReply(responses);
  }

  /**
   * The answers of a batch's calls, in its order. Calls run one after another, except that a run
   * of neighbouring calls to methods that allow it (`overlapsInBatch`) is started in order and
   * awaited together: a burst of transactions then shares recoveries and journal commits
   * instead of waiting for each in turn. It relies on `handleSingle` reaching the handler
   * synchronously: an `await` before the handler would let calls take their places out of order.
   * Between two calls the batch may give the event loop a turn (`pause`), so a batch of a
   * hundred transactions does not hold other clients' answers; its calls still start in order.
   */
  private async runBatch(
    calls: unknown[],
    context: CallContext,
  ): Promise<Array<{ call: unknown; text: Reply | undefined }>> {
    const answers: Array<{ call: unknown; text: Reply | undefined }> = [];
    let overlapping: Array<{ call: unknown; text: MaybePromise<Reply | undefined> }> = [];
    const settle = async () => {
      // All at once, so that none of them can fail unobserved while an earlier one is awaited.
      const texts = await Promise.all(overlapping.map(({ text }) => text));
      overlapping.forEach(({ call }, index) => answers.push({ call, text: texts[index] }));
      overlapping = [];
    };
    for (const call of calls) {
      await this.pause();
      if (this.overlaps(call)) {
        overlapping.push({ call, text: this.handleSingle(call, context) });
        continue;
      }
      await settle();
      answers.push({ call, text: await this.handleSingle(call, context) });
    }
    await settle();
    return answers;
  }

  private overlaps(call: unknown): boolean {
    const method = (call as { method?: unknown } | null)?.method;
    if (typeof method !== 'string') return false;
    const resolution = this.registry.resolve(method);
    return resolution.kind === 'found' && resolution.method.overlapsInBatch === true;
  }

  private handleSingle(message: unknown, context: CallContext): MaybePromise<Reply | undefined> {
    const startedAt = this.observer.now();
    const envelope = this.parseEnvelope(message);
    if (envelope instanceof RpcError) {
      this.observer.rpcCall('', envelope.code, startedAt);
      const id = (message as { id?: unknown } | null)?.id;
      return errorResponse(isValidId(id) ? idTextOf(message) : 'null', envelope);
    }
    let result: unknown;
    try {
      result = this.invoke(envelope, context);
    } catch (error) {
      return this.failure(envelope, error, context, startedAt);
    }
    if (result instanceof Promise) {
      return result.then(
        (value: unknown) => this.written(envelope, value, context, startedAt),
        (error: unknown) => this.failure(envelope, error, context, startedAt),
      );
    }
    return this.written(envelope, result, context, startedAt);
  }

  /**
   * The answer carrying `result`, or, when it cannot be written (a string longer than V8's
   * longest, a value JSON has no form for), the failure that says so under the request's id.
   */
  private written(
    envelope: Envelope,
    result: unknown,
    context: CallContext,
    startedAt: number,
  ): Reply | undefined {
    try {
      return this.success(envelope, result, startedAt);
    } catch (error) {
      return this.failure(envelope, error, context, startedAt);
    }
  }

  private success(envelope: Envelope, result: unknown, startedAt: number): Reply | undefined {
    // Written first: a result that cannot be written is counted as the failure it is.
    const text = envelope.isNotification ? undefined : resultText(result);
    this.observer.rpcCall(envelope.method, undefined, startedAt);
    if (text === undefined) return undefined;
    this.resultListener?.(replyLength(text));
    return resultReply(envelope.idText, text);
  }

  private failure(
    envelope: Envelope,
    error: unknown,
    context: CallContext,
    startedAt: number,
  ): string | undefined {
    const rpcError = toRpcError(error, (internal) =>
      this.logger.error('JSON-RPC handler failed', {
        method: envelope.method,
        error: String((internal as Error)?.stack ?? internal),
      }),
    );
    if (error instanceof DamagedStoreError) {
      // The operator must hear of it, but every client asking for that block would repeat it.
      this.warnings.report('damaged store', 'read of a damaged store refused', {
        method: envelope.method,
        problem: error.message,
      });
    } else if (this.registry.resolve(envelope.method).kind === 'found') {
      this.reportRefusal(envelope.method, rpcError, context);
    }
    this.observer.rpcCall(envelope.method, rpcError.code, startedAt);
    if (envelope.isNotification) return undefined;
    return errorResponse(envelope.idText, rpcError);
  }

  /** Refused tokens and limits hit go to the log, throttled per method: a client can cause them at will. */
  private reportRefusal(method: string, error: RpcError, context: CallContext): void {
    const details = { method, transport: context.transport, from: context.remoteAddress };
    if (error.code === RpcErrorCode.unauthorized) {
      this.warnings.report(`unauthorized ${method}`, 'call refused: no valid token', details);
    } else if (error.code === RpcErrorCode.limitExceeded) {
      this.warnings.report(`limit ${method}`, 'limit hit', { ...details, limit: error.message });
    }
  }

  private parseEnvelope(message: unknown): Envelope | RpcError {
    if (typeof message !== 'object' || message === null || Array.isArray(message)) {
      return new RpcError(
        RpcErrorCode.invalidRequest,
        'invalid request: expected a JSON-RPC request object',
      );
    }
    const record = message as Record<string, unknown>;
    if (record.jsonrpc !== '2.0') {
      return new RpcError(RpcErrorCode.invalidRequest, 'invalid request: "jsonrpc" must be "2.0"');
    }
    if ('id' in record && !isValidId(record.id)) {
      return new RpcError(
        RpcErrorCode.invalidRequest,
        'invalid request: "id" must be a string, a number or null',
      );
    }
    if (typeof record.method !== 'string' || record.method.length === 0) {
      return new RpcError(
        RpcErrorCode.invalidRequest,
        'invalid request: "method" must be a non-empty string',
      );
    }
    return {
      idText: idTextOf(record),
      isNotification: !('id' in record),
      method: record.method,
      params: record.params,
    };
  }

  /** Runs the method: its value, or the promise of it when the handler is asynchronous. */
  private invoke(envelope: Envelope, context: CallContext): unknown {
    const resolution = this.registry.resolve(envelope.method);
    switch (resolution.kind) {
      case 'unknown':
        throw new RpcError(
          RpcErrorCode.methodNotFound,
          `the method ${envelope.method} does not exist/is not available`,
        );
      case 'not-enabled':
        throw new RpcError(
          RpcErrorCode.methodNotFound,
          `the method ${envelope.method} does not exist/is not available (namespace "${resolution.namespace}" is not enabled by --evm.rpc.api)`,
        );
      case 'unsupported':
        throw new RpcError(
          RpcErrorCode.methodNotFound,
          `the method ${envelope.method} is not supported by this node`,
        );
      case 'found':
        break;
    }
    const { method, access } = resolution;
    const allowed =
      access === 'public' ||
      context.authenticated ||
      (access === 'loopback-or-token' && context.loopback);
    if (!allowed) {
      throw new RpcError(
        RpcErrorCode.unauthorized,
        `unauthorized: ${envelope.method} requires authentication`,
      );
    }
    const params = validateParams(method.params, envelope.params);
    this.logger.debug('call', { method: envelope.method, transport: context.transport });
    return method.handler(params, context);
  }
}
