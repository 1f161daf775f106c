/** Errors the client raises, so callers (the CLI, tests) can tell failures apart. */

/** The daemon answered with a JSON-RPC error object. */
export class RpcResponseError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
    this.name = 'RpcResponseError';
  }
}

/**
 * No daemon is running for the data directory, or it did not answer; `urlFlag` is the flag
 * that names a node instead for the command at hand.
 */
export class DaemonNotRunningError extends Error {
  constructor(dataDir: string, urlFlag = '--rpc-url') {
    super(
      `no daemon is running for data directory ${dataDir}; start one with "node-cli daemon start", or name a node with ${urlFlag}`,
    );
    this.name = 'DaemonNotRunningError';
  }
}

/** The data directory's daemon runs, but with the interface a command needs turned off. */
export class InterfaceDisabledError extends Error {
  constructor(dataDir: string, what: string, urlFlag: string) {
    super(
      `the daemon of data directory ${dataDir} runs, but its ${what}; name a node with ${urlFlag} instead`,
    );
    this.name = 'InterfaceDisabledError';
  }
}

/** The daemon could not be started, stopped or reached as asked. */
export class DaemonControlError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DaemonControlError';
  }
}

/** The daemon's REST interface answered with an error status. */
export class RestResponseError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'RestResponseError';
  }
}

/** Endpoints were given by URL, but not the one a command needs. */
export class MissingEndpointError extends Error {
  constructor(readonly flag: string) {
    super(`this command needs ${flag} when the node is given by URL`);
    this.name = 'MissingEndpointError';
  }
}

/** The node's address did not answer (refused, unknown host, reset, timed out). */
export class NodeUnreachableError extends Error {
  constructor(
    readonly url: string,
    cause: Error & { code?: string },
  ) {
    super(
      `cannot reach the node at ${url} (${cause.code ?? cause.message}): is it running, and is the URL right?`,
      { cause },
    );
    this.name = 'NodeUnreachableError';
  }
}

/** The node took the connection but sent nothing for the whole request timeout. */
export class RequestTimeoutError extends Error {
  constructor(
    readonly url: string,
    readonly timeoutMs: number,
  ) {
    super(
      `no answer from ${url} within ${timeoutMs / 1000} s: is the node stopped or overloaded? (--request-timeout sets the limit)`,
    );
    this.name = 'RequestTimeoutError';
  }
}

/** The node's TLS certificate did not verify against the trusted authorities. */
export class UntrustedCertificateError extends Error {
  constructor(
    readonly url: string,
    cause: Error & { code?: string },
  ) {
    super(
      `the TLS certificate of ${url} is not trusted (${cause.message}): if the node's certificate authority is your own, name its PEM file in NODE_EXTRA_CA_CERTS`,
      { cause },
    );
    this.name = 'UntrustedCertificateError';
  }
}
