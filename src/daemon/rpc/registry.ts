/**
 * The method registry: namespaces are modules of method definitions, registered in one place;
 * which namespaces are served is chosen by configuration (`--evm.rpc.api`).
 */
import type { ParamSpec } from './params.js';

/**
 * Who may call a method. `private` needs the auth token; `loopback-or-token` is served to
 * loopback clients and authenticated callers only (key-using methods, so an unlocked account
 * is never spendable from the network or from a web page).
 */
export type Access = 'public' | 'private' | 'loopback-or-token';

/** A live, persistent connection (WebSocket) that can receive server-initiated messages. */
export interface RpcConnection {
  readonly id: string;
  /**
   * Sends a JSON-RPC notification whose `params` are given as JSON text, so that a payload many
   * subscribers receive is serialised once. Returns false when the connection is gone.
   */
  notify(method: string, paramsJson: string): boolean;
  /** Runs `listener` once when the connection closes (subscriptions end with it). */
  onClose(listener: () => void): void;
}

export interface CallContext {
  transport: 'http' | 'ws';
  /** The caller presented the right auth token. */
  authenticated: boolean;
  /**
   * The caller connected from a loopback address and is not a web page: a request that carries
   * an `Origin` header never counts as loopback (see `transport/browser-guard.ts`).
   */
  loopback: boolean;
  remoteAddress: string;
  connection?: RpcConnection;
}

/**
 * Who a call comes from, for limits and fair shares per client: its WebSocket connection, or
 * over HTTP, which has no connection identity (a client may use any number of them), its remote
 * address. Clients behind one proxy share that address, and so share its limits.
 */
export function callerOf(context: CallContext): string {
  return context.connection === undefined
    ? `address ${context.remoteAddress}`
    : `connection ${context.connection.id}`;
}

export interface MethodDefinition {
  name: string;
  params: readonly ParamSpec[];
  /** Overrides the namespace's access level. */
  access?: Access;
  /**
   * Neighbouring calls of this method in a batch may run at the same time (the dispatcher starts
   * them in batch order and waits for all). Only for a handler that takes its place in any
   * ordering it needs before its first `await`, so starting in order is enough.
   */
  overlapsInBatch?: boolean;
  handler(params: unknown[], context: CallContext): unknown;
}

export interface NamespaceModule {
  namespace: string;
  /** Access level of every method unless a method says otherwise. */
  access: Access;
  methods: readonly MethodDefinition[];
}

/**
 * Declares a method with typed parameters. The dispatcher validates the parameters against
 * `params` before calling `handler`, so the tuple type `P` describes validated values.
 */
export function defineMethod<P extends unknown[]>(definition: {
  name: string;
  params: readonly ParamSpec[];
  access?: Access;
  overlapsInBatch?: boolean;
  handler(params: P, context: CallContext): unknown;
}): MethodDefinition {
  return definition as MethodDefinition;
}

export type Resolution =
  | { kind: 'found'; method: MethodDefinition; access: Access }
  | { kind: 'not-enabled'; namespace: string }
  | { kind: 'unsupported' }
  | { kind: 'unknown' };

interface RegisteredMethod {
  method: MethodDefinition;
  access: Access;
  namespace: string;
}

export class MethodRegistry {
  private readonly methods = new Map<string, RegisteredMethod>();
  private readonly unsupported = new Set<string>();

  constructor(private readonly enabledNamespaces: ReadonlySet<string>) {}

  register(module: NamespaceModule): this {
    for (const method of module.methods) {
      if (this.methods.has(method.name)) throw new Error(`method ${method.name} registered twice`);
      this.methods.set(method.name, {
        method,
        access: method.access ?? module.access,
        namespace: module.namespace,
      });
    }
    return this;
  }

  /** Methods the spec lists that this node deliberately does not serve. */
  declareUnsupported(names: readonly string[]): this {
    for (const name of names) this.unsupported.add(name);
    return this;
  }

  resolve(name: string): Resolution {
    const entry = this.methods.get(name);
    if (entry) {
      return this.enabledNamespaces.has(entry.namespace)
        ? { kind: 'found', method: entry.method, access: entry.access }
        : { kind: 'not-enabled', namespace: entry.namespace };
    }
    return this.unsupported.has(name) ? { kind: 'unsupported' } : { kind: 'unknown' };
  }

  /** Whether `name` is a method the node has (served or not) or one declared unsupported. */
  knows(name: string): boolean {
    return this.methods.has(name) || this.unsupported.has(name);
  }

  /** Names of the methods served, sorted. */
  servedMethods(): string[] {
    return [...this.methods.entries()]
      .filter(([, entry]) => this.enabledNamespaces.has(entry.namespace))
      .map(([name]) => name)
      .sort();
  }
}
