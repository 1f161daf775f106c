import type { Server } from 'node:net';
import type { HostPort } from '../../shared/config/option-parsers.js';
import { ConflictError, ServerError } from '../../shared/errors.js';

/**
 * The error of a failed listen: names the address, the option that set it and the cause (for
 * example "address already in use").
 */
export function listenError(
  error: NodeJS.ErrnoException,
  address: HostPort,
  optionName: string,
): ConflictError | ServerError {
  const where = `${address.host}:${address.port} (--${optionName})`;
  if (error.code === 'EADDRINUSE') {
    return new ConflictError(`cannot listen on ${where}: address already in use`);
  }
  if (error.code === 'EACCES')
    return new ServerError(`cannot listen on ${where}: permission denied`);
  return new ServerError(`cannot listen on ${where}: ${error.message}`);
}

/** Starts listening and resolves to the bound port, or rejects with a {@link listenError}. */
export function listen(server: Server, address: HostPort, optionName: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException) =>
      reject(listenError(error, address, optionName));
    server.once('error', onError);
    server.listen(address.port, address.host, () => {
      server.off('error', onError);
      const bound = server.address();
      resolve(typeof bound === 'object' && bound ? bound.port : address.port);
    });
  });
}

/** `http://host:port` with IPv6 hosts bracketed; wildcard hosts are shown as loopback for clients. */
export function endpointUrl(scheme: string, host: string, port: number, path = ''): string {
  const reachable = host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '::1' : host;
  const shown = reachable.includes(':') ? `[${reachable}]` : reachable;
  return `${scheme}://${shown}:${port}${path}`;
}

export function isLoopback(remoteAddress: string | undefined): boolean {
  if (!remoteAddress) return false;
  const address = remoteAddress.replace(/^::ffff:/, '');
  return address === '::1' || address.startsWith('127.');
}
