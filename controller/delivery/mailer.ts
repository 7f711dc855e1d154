import type { Knex } from 'knex';
import nodemailer, { type Transporter } from 'nodemailer';
import type { SecretBox } from '../crypto/secret-box.js';

export interface MailMessage { to: string; subject: string; text: string }

/**
 * Sends notification mail through the stored SMTP configuration (smtp_config, password sealed).
 * The transport is rebuilt when the configuration changes.
 */
export class Mailer {
  private transport: { stamp: string; t: Transporter; from: string | { name: string; address: string }; password: string } | null = null;

  constructor(private readonly db: Knex, private readonly secretBox: SecretBox) {}

  /** True when an enabled SMTP configuration exists. */
  async configured(): Promise<boolean> {
    const row = await this.db('smtp_config').where('id', 1).first('enabled');
    return !!row?.enabled;
  }

  async send(m: MailMessage, timeoutMs = 20_000): Promise<void> {
    const cfg = await this.db('smtp_config').where('id', 1).first();
    if (!cfg) throw new Error('SMTP is not configured');
    if (!cfg.enabled) throw new Error('SMTP is disabled');
    const stamp = `${new Date(cfg.updatedAt).getTime()}:${timeoutMs}`;
    if (this.transport?.stamp !== stamp) {
      this.transport?.t.close();
      const password = cfg.passwordEnc ? this.secretBox.open(cfg.passwordEnc) : '';
      const t = nodemailer.createTransport({
        host: cfg.host, port: cfg.port, secure: cfg.secure, pool: true, maxConnections: 2,
        auth: cfg.username ? { user: cfg.username, pass: password } : undefined,
        connectionTimeout: timeoutMs, greetingTimeout: timeoutMs, socketTimeout: timeoutMs,
      });
      this.transport = { stamp, t, password, from: cfg.fromName ? { name: cfg.fromName, address: cfg.fromAddress } : cfg.fromAddress };
    }
    try {
      await this.transport.t.sendMail({ from: this.transport.from, to: m.to, subject: m.subject, text: m.text });
    } catch (e) {
      // The first line only, and never the password even if a server echoed it.
      const line = String((e as Error).message).split('\n')[0].slice(0, 300);
      const pw = this.transport.password;
      throw new Error(`SMTP send failed: ${pw ? line.split(pw).join('[REDACTED]') : line}`);
    }
  }

  close(): void {
    this.transport?.t.close();
    this.transport = null;
  }
}
