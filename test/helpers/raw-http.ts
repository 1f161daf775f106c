/**
 * HTTP/1.1 spoken by hand over node:net, for tests of framing and of what a server does with
 * clients that misbehave at the byte level.
 */
import { connect, type Socket } from 'node:net';

/** A raw HTTP/1.1 connection: what a client writes, and everything it reads back. */
export class RawConnection {
  private received = '';
  private closed = false;
  private readonly waiters: (() => void)[] = [];

  private constructor(private readonly socket: Socket) {
    socket.setEncoding('utf8');
    socket.on('data', (text: string) => {
      this.received += text;
      this.wake();
    });
    // A reset by the server shows as the close that follows it.
    socket.on('error', () => {});
    socket.on('close', () => {
      this.closed = true;
      this.wake();
    });
  }

  static open(url: string): Promise<RawConnection> {
    const { hostname, port } = new URL(url);
    return new Promise((resolve, reject) => {
      const socket = connect(Number(port), hostname, () => resolve(new RawConnection(socket)));
      socket.once('error', reject);
    });
  }

  write(text: string): void {
    this.socket.write(text);
  }

  /**
   * Waits until `count` complete responses have arrived (or the server closed). The responses
   * numbered in `bodiless` answer HEAD requests: they have no body whatever their headers say.
   */
  async responses(
    count: number,
    bodiless: readonly number[] = [],
  ): Promise<{ status: number; headers: string; body: string }[]> {
    for (;;) {
      const parsed = this.parse(bodiless);
      if (parsed.length >= count || this.closed) return parsed;
      await new Promise<void>((resolve) => this.waiters.push(resolve));
    }
  }

  async closedByServer(): Promise<boolean> {
    while (!this.closed) await new Promise<void>((resolve) => this.waiters.push(resolve));
    return true;
  }

  /** Stops reading: what the server sends waits in the sockets' buffers, then in the server. */
  pause(): void {
    this.socket.pause();
  }

  end(): void {
    this.socket.destroy();
  }

  /** Closes the writing side only (a FIN), as a client that has nothing more to send. */
  endWriting(): void {
    this.socket.end();
  }

  private wake(): void {
    this.waiters.splice(0).forEach((resolve) => resolve());
  }

  private parse(bodiless: readonly number[]): { status: number; headers: string; body: string }[] {
    const parsed = [];
    let rest = this.received;
    for (;;) {
      const end = rest.indexOf('\r\n\r\n');
      if (end < 0) return parsed;
      const headers = rest.slice(0, end);
      const status = Number(headers.slice(9, 12));
      const length = /content-length: (\d+)/i.exec(headers);
      const size: number = length && !bodiless.includes(parsed.length) ? Number(length[1]) : 0;
      if (rest.length < end + 4 + size) return parsed;
      parsed.push({ status, headers, body: rest.slice(end + 4, end + 4 + size) });
      rest = rest.slice(end + 4 + size);
    }
  }
}

export function post(body: string, extra = ''): string {
  return (
    `POST / HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n` +
    `Content-Length: ${Buffer.byteLength(body)}\r\n${extra}\r\n${body}`
  );
}

/** Writes `text` one character at a time, every `intervalMs`, until the returned stop is called. */
export function trickle(connection: RawConnection, text: string, intervalMs: number): () => void {
  let sent = 0;
  const timer = setInterval(() => connection.write(text[sent++ % text.length]), intervalMs);
  return () => clearInterval(timer);
}
