/**
 * One listening address served by several threads. Each thread binds a socket of its own to
 * the address with SO_REUSEPORT, and Linux spreads new connections over the sockets; no thread
 * ever holds, or closes, another thread's socket. Node 20 cannot set that option (`reusePort`
 * came with Node 22.12), so the socket is made by the prebuilt binding of node-unix-socket.
 *
 * SO_REUSEPORT would also let another process of the same user bind the same address and
 * silently take a share of the connections, so the first thread first proves the address free
 * with an ordinary listen, and fails as an ordinary listen would.
 */
import { lookup } from 'node:dns/promises';
import { createRequire } from 'node:module';
import { createServer, isIP, isIPv4, type Server } from 'node:net';
import { isMainThread } from 'node:worker_threads';
import type { HostPort } from '../config/option-parsers.js';
import { ConflictError, ServerError } from '../errors.js';
import { listen } from './listen.js';

interface ReuseportBinding {
  socketNewSoReuseportFd(domain: 'ipv4' | 'ipv6', port: number, ip: string): number;
  socketClose(fd: number): void;
  initCleanupHook(): void;
}

/** The binding's prebuilt packages (optional dependencies: present only where they run). */
const BINDING_PACKAGES = ['node-unix-socket-linux-x64-gnu', 'node-unix-socket-linux-x64-musl'];

let loaded: ReuseportBinding | null | undefined;

function reuseportBinding(): ReuseportBinding | null {
  if (loaded !== undefined) return loaded;
  loaded = null;
  if (process.platform !== 'linux') return loaded;
  const require = createRequire(import.meta.url);
  for (const name of BINDING_PACKAGES) {
    try {
      loaded = require(name) as ReuseportBinding;
      break;
    } catch {
      // Not installed on this platform, or built for the other C library.
    }
  }
  // As the package's own entry does: worker threads must release the binding's handles.
  if (loaded !== null && !isMainThread) loaded.initCleanupHook();
  return loaded;
}

/** Whether this platform lets several threads listen on one address. */
export function sharedListeningSupported(): boolean {
  return reuseportBinding() !== null;
}

/** The address every thread binds: an IP literal and the port actually bound. */
export interface SharedAddress {
  ip: string;
  port: number;
}

function bindError(where: string, error: unknown): Error {
  const reason = (error as Error).message.toLowerCase();
  const message = `cannot listen on ${where}: ${reason}`;
  return /already in use/.test(reason) ? new ConflictError(message) : new ServerError(message);
}

async function listenOnSocket(server: Server, ip: string, port: number, where: string) {
  const binding = reuseportBinding();
  if (binding === null)
    throw new ServerError(`cannot listen on ${where}: SO_REUSEPORT unavailable`);
  let fd: number;
  try {
    fd = binding.socketNewSoReuseportFd(isIPv4(ip) ? 'ipv4' : 'ipv6', port, ip);
  } catch (error) {
    throw bindError(where, error);
  }
  await new Promise<void>((resolve, reject) => {
    const onError = (error: Error) => {
      binding.socketClose(fd);
      reject(bindError(where, error));
    };
    server.once('error', onError);
    server.listen({ fd }, () => {
      server.off('error', onError);
      resolve();
    });
  });
}

/**
 * Listens on `address` as the first of the threads that will share it; resolves to the address
 * the others join. Errors name the address and the option, like `listen`.
 */
export async function listenShared(
  server: Server,
  address: HostPort,
  optionName: string,
): Promise<SharedAddress> {
  const ip = isIP(address.host) ? address.host : (await lookup(address.host)).address;
  if (address.port !== 0) {
    const probe = createServer();
    await listen(probe, address, optionName);
    await new Promise((resolve) => probe.close(resolve));
  }
  await listenOnSocket(
    server,
    ip,
    address.port,
    `${address.host}:${address.port} (--${optionName})`,
  );
  const bound = server.address();
  return { ip, port: typeof bound === 'object' && bound ? bound.port : address.port };
}

/** Listens on an address another thread has taken with {@link listenShared}. */
export async function joinShared(server: Server, shared: SharedAddress): Promise<void> {
  await listenOnSocket(server, shared.ip, shared.port, `${shared.ip}:${shared.port}`);
}
