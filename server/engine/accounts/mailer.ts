import fs from 'node:fs';
import path from 'node:path';
import nodemailer, { type Transporter } from 'nodemailer';
import type { Logger } from '../log';
import { LoupeError } from '../errors';

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
}

/** Where a message went: an SMTP server, or a file in the local outbox. */
export interface Delivery {
  via: 'smtp' | 'outbox';
  path?: string;
}

export interface Mailer {
  send(message: MailMessage): Promise<Delivery>;
  close?(): void;
}

export interface SmtpConfig {
  host: string;
  port?: number;
  user?: string;
  password?: string;
  /** From address (default `Loupe <loupe@localhost>`). */
  from?: string;
  /** true: TLS from the first byte (port 465); false: plain, upgraded with STARTTLS when offered. */
  secure?: boolean;
  /** Refuse to send unless STARTTLS succeeds. */
  requireTls?: boolean;
  /** Accept self-signed certificates (a local relay). */
  allowSelfSigned?: boolean;
  /** Give up on a server that does not answer (default 10 s). */
  timeoutMs?: number;
}

const DEFAULT_FROM = 'Loupe <loupe@localhost>';

/** Sends through an SMTP server with nodemailer. A failure rejects: the caller answers 503. */
export class SmtpMailer implements Mailer {
  private readonly transport: Transporter;

  constructor(private readonly config: SmtpConfig) {
    const timeout = config.timeoutMs ?? 10_000;
    this.transport = nodemailer.createTransport({
      host: config.host,
      port: config.port ?? (config.secure ? 465 : 587),
      secure: config.secure ?? false,
      requireTLS: config.requireTls ?? false,
      auth: config.user ? { user: config.user, pass: config.password ?? '' } : undefined,
      tls: config.allowSelfSigned ? { rejectUnauthorized: false } : undefined,
      connectionTimeout: timeout,
      greetingTimeout: timeout,
      socketTimeout: timeout,
    });
  }

  async send(message: MailMessage): Promise<Delivery> {
    await this.transport.sendMail({ from: this.config.from ?? DEFAULT_FROM, to: message.to, subject: message.subject, text: message.text });
    return { via: 'smtp' };
  }

  close(): void {
    this.transport.close();
  }
}

/**
 * The default on a machine without mail settings: the message is written as an .eml file to
 * DATA_DIR/outbox and announced through the logger (the CLI's stderr, the extension's output), so
 * the person at the machine can read the code. Listeners (the extension's notification) get it too.
 */
export class OutboxMailer implements Mailer {
  /** Made on the first mail: nodemailer loads then, not when the engine starts (the editor's start-up). */
  private compose: Transporter | null = null;

  constructor(readonly dir: string, private readonly log: Logger, private readonly from = DEFAULT_FROM) {}

  async send(message: MailMessage): Promise<Delivery> {
    this.compose ??= nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
    const info = await this.compose.sendMail({ from: this.from, to: message.to, subject: message.subject, text: message.text });
    fs.mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    const name = `${new Date().toISOString().replace(/[:.]/g, '-')}-${message.to.replace(/[^a-z0-9@._-]/gi, '_')}.eml`;
    const file = path.join(this.dir, name);
    try {
      fs.writeFileSync(file, info.message as Buffer, { mode: 0o600 });
    } catch (error) {
      fs.rmSync(file, { force: true }); // no half-written message (a full disk)
      throw error;
    }
    this.log.info(`mail to ${message.to} (no SMTP configured, saved in ${file}): ${message.subject}`);
    return { via: 'outbox', path: file };
  }
}

/** Reads LOUPE_SMTP_* from an environment (the CLI passes process.env). Returns undefined when unset. */
export function smtpConfigFromEnv(env: Record<string, string | undefined>): SmtpConfig | undefined {
  if (!env.LOUPE_SMTP_HOST) return undefined;
  const port = env.LOUPE_SMTP_PORT ? Number(env.LOUPE_SMTP_PORT) : undefined;
  if (port !== undefined && (!Number.isInteger(port) || port < 1 || port > 65535)) throw new LoupeError('VALIDATION_FAILED', 'LOUPE_SMTP_PORT: must be a port number');
  const flag = (v?: string) => (v === undefined ? undefined : /^(1|true|yes)$/i.test(v));
  return {
    host: env.LOUPE_SMTP_HOST, port, user: env.LOUPE_SMTP_USER, password: env.LOUPE_SMTP_PASSWORD, from: env.LOUPE_SMTP_FROM,
    secure: flag(env.LOUPE_SMTP_SECURE), requireTls: flag(env.LOUPE_SMTP_REQUIRE_TLS), allowSelfSigned: flag(env.LOUPE_SMTP_ALLOW_SELF_SIGNED),
  };
}
