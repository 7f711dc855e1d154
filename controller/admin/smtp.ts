import nodemailer, { type Transporter } from 'nodemailer';
import type SMTPPool from 'nodemailer/lib/smtp-pool';
import { AppError } from '../errors/app-error.js';
import { redactSecrets } from '../crypto/redact.js';
import type { SecretBox } from '../crypto/secret-box.js';
import type { SmtpConfigRepository } from '../store/repositories/smtp-config.js';
import type { OutgoingGuard } from '../net/outgoing-guard.js';

export interface SmtpRow {
  id: number;
  host: string;
  port: number;
  secure: boolean;
  username: string | null;
  passwordEnc: string | null;
  fromAddress: string;
  fromName: string | null;
  enabled: boolean;
  updatedAt: Date;
}

export interface SmtpInput {
  host: string;
  port: number;
  secure?: boolean;
  username?: string | null;
  /** Omitted: keep the stored password; null: remove it. */
  password?: string | null;
  fromAddress: string;
  fromName?: string | null;
  enabled?: boolean;
}

export function toSmtp(r: SmtpRow) {
  return {
    host: r.host, port: r.port, secure: r.secure, username: r.username, hasPassword: !!r.passwordEnc,
    fromAddress: r.fromAddress, fromName: r.fromName, enabled: r.enabled, updatedAt: r.updatedAt,
  };
}

/** Removes the password, and its base64 form (AUTH PLAIN/LOGIN echoes), before anything is cut. */
const scrub = (text: string, secret: string | null) =>
  (secret ? redactSecrets(text, [secret, Buffer.from(secret).toString('base64')]) : text);

/**
 * The single SMTP configuration and sending mail through it: the admin test route and
 * notification email both send here. The pooled transport is rebuilt when the connection
 * settings (or the wanted timeout) change.
 */
export class SmtpService {
  private transport: { stamp: string; t: Transporter; password: string | null } | null = null;

  constructor(private readonly config: SmtpConfigRepository<SmtpRow>, private readonly secretBox: SecretBox, private readonly outgoing: OutgoingGuard) {}

  async find(): Promise<SmtpRow | undefined> {
    return this.config.find();
  }

  /** 400 on `host` when it aims at an address the outgoing guard refuses (sending checks again). */
  async save(input: SmtpInput): Promise<SmtpRow> {
    await this.outgoing.validateHost(input.host, 'host');
    const values: Record<string, unknown> = {
      host: input.host, port: input.port, secure: input.secure ?? false, username: input.username ?? null,
      fromAddress: input.fromAddress, fromName: input.fromName ?? null, enabled: input.enabled ?? true,
    };
    if (input.password !== undefined) values.passwordEnc = this.secretBox.sealOrNull(input.password);
    return this.config.save(values);
  }

  /**
   * Sends one message through the stored configuration. A failure is 502 SERVICE_UNAVAILABLE whose
   * message carries the SMTP server's answer, never the password.
   */
  async send(message: { to: string; subject: string; text: string }, timeoutMs = 20_000): Promise<void> {
    const cfg = await this.find();
    if (!cfg) throw new AppError('CONFLICT', 'SMTP is not configured', { hint: 'PUT /api/admin/smtp first' });
    if (!cfg.enabled) throw new AppError('CONFLICT', 'SMTP is disabled', { hint: 'Set enabled to true in /api/admin/smtp' });
    const { t, password } = this.transportFor(cfg, timeoutMs);
    try {
      await t.sendMail({
        from: cfg.fromName ? { name: cfg.fromName, address: cfg.fromAddress } : cfg.fromAddress,
        to: message.to, subject: message.subject, text: message.text,
      });
    } catch (e) {
      const err = e as { message?: string; code?: string; responseCode?: number };
      const detail = scrub(String(err.message ?? 'unknown error'), password).split('\n')[0].slice(0, 300);
      throw new AppError('SERVICE_UNAVAILABLE', `The SMTP server did not accept the message: ${detail}`,
        { status: 502, hint: 'Check host, port, secure and the credentials', details: err.code ? { smtpCode: err.code } : undefined });
    }
  }

  close(): void {
    this.transport?.t.close();
    this.transport = null;
  }

  private transportFor(cfg: SmtpRow, timeoutMs: number) {
    // keyed by what the connection is made of, so any change (from any replica) gets a new one
    const stamp = JSON.stringify([cfg.host, cfg.port, cfg.secure, cfg.username, cfg.passwordEnc, timeoutMs]);
    if (this.transport?.stamp !== stamp) {
      this.close();
      const password = cfg.passwordEnc ? this.secretBox.open(cfg.passwordEnc) : null;
      const t = nodemailer.createTransport({
        host: cfg.host, port: cfg.port, secure: cfg.secure, pool: true, maxConnections: 2,
        auth: cfg.username ? { user: cfg.username, pass: password ?? '' } : undefined,
        connectionTimeout: timeoutMs, greetingTimeout: timeoutMs, socketTimeout: timeoutMs,
        // every connection through the outgoing guard: the address checked is the one connected to
        getSocket: (opts: { host?: string; port?: number }, done: (err: Error | null, socket?: { connection: unknown }) => void) => {
          this.outgoing.connect(opts.host ?? cfg.host, opts.port ?? cfg.port, timeoutMs).then((connection) => done(null, { connection }), (err: Error) => done(err));
        },
      } as SMTPPool.Options);
      this.transport = { stamp, t, password };
    }
    return this.transport!;
  }
}
