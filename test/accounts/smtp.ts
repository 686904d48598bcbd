import { SMTPServer } from 'smtp-server';
import { simpleParser, type ParsedMail } from 'mailparser';
import type { AddressInfo } from 'node:net';

export interface Inbox {
  port: number;
  messages: ParsedMail[];
  /** Resolves with the next message to `to` (or one already received and not yet taken). */
  next(to: string, timeoutMs?: number): Promise<ParsedMail>;
  /** The 6-digit code in the next message to `to`. */
  code(to: string): Promise<string>;
  close(): Promise<void>;
}

/** A real SMTP server on 127.0.0.1 (smtp-server) that keeps what it receives, parsed with mailparser. */
export async function startInbox(options: { port?: number; user?: string; password?: string; starttls?: boolean } = {}): Promise<Inbox> {
  const messages: ParsedMail[] = [];
  const taken = new Set<ParsedMail>();
  const waiters: (() => void)[] = [];
  const server = new SMTPServer({
    secure: false,
    // STARTTLS uses smtp-server's built-in self-signed certificate.
    disabledCommands: [...(options.starttls ? [] : ['STARTTLS']), ...(options.user ? [] : ['AUTH'])],
    authOptional: !options.user,
    allowInsecureAuth: true,
    onAuth(auth, _session, callback) {
      if (auth.username === options.user && auth.password === options.password) callback(null, { user: auth.username });
      else callback(new Error('invalid login'));
    },
    onData(stream, _session, callback) {
      simpleParser(stream).then((mail) => {
        messages.push(mail);
        for (const w of waiters.splice(0)) w();
        callback();
      }, callback);
    },
    logger: false,
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const port = (server.server.address() as AddressInfo).port;
  const find = (to: string) => messages.find((m) => !taken.has(m) && JSON.stringify(m.to).includes(to));
  const next: Inbox['next'] = async (to, timeoutMs = 5000) => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = find(to);
      if (found) {
        taken.add(found);
        return found;
      }
      if (Date.now() > deadline) throw new Error(`no mail to ${to} within ${timeoutMs} ms`);
      await new Promise<void>((resolve) => {
        waiters.push(resolve);
        setTimeout(resolve, 100);
      });
    }
  };
  return {
    port, messages, next,
    async code(to) {
      const mail = await next(to);
      const match = /\b(\d{6})\b/.exec(mail.text ?? '');
      if (!match) throw new Error(`no code in: ${mail.text}`);
      return match[1];
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
