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

/** No daemon is running for the data directory, or it did not answer. */
export class DaemonNotRunningError extends Error {
  constructor(dataDir: string, detail?: string) {
    super(
      `no daemon is running for data directory ${dataDir}${detail ? ` (${detail})` : ''}; start one with "node-cli daemon start"`,
    );
    this.name = 'DaemonNotRunningError';
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
