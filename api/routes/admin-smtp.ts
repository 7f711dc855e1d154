import type { Services } from '../../controller/services.js';
import { notFound } from '../../controller/errors/app-error.js';
import { toSmtp, type SmtpInput } from '../../controller/admin/smtp.js';
import { route } from '../http/route.js';
import { bool, int, nonEmpty, nullable, object, str, timestamp } from '../http/schema.js';

const email = str({ format: 'email', maxLength: 320 });

const smtpWrite = object({
  host: nonEmpty(255),
  port: int(1, 65535, { default: 587 }),
  secure: { ...bool, default: false },
  username: nullable(str({ maxLength: 320 })),
  password: { ...nullable(str({ minLength: 1, maxLength: 1024 })), writeOnly: true,
    description: 'Write-only. Omit to keep the stored password; null removes it' },
  fromAddress: email,
  fromName: nullable(str({ maxLength: 200 })),
  enabled: { ...bool, default: true },
}, ['host', 'fromAddress']);

const smtpRead = object({
  host: str(), port: int(1, 65535), secure: bool, username: nullable(str()), hasPassword: bool,
  fromAddress: str(), fromName: nullable(str()), enabled: bool, updatedAt: timestamp,
});

export default function smtpRoutes(s: Services) {
  return [
    route({
      method: 'GET', path: '/api/admin/smtp', operationId: 'getSmtpConfig', tag: 'admin', access: 'admin',
      summary: 'The SMTP configuration (the password only as hasPassword); 404 until one is saved', response: smtpRead, errors: [404],
      async handler() {
        const row = await s.smtp.find();
        if (!row) throw notFound('SMTP configuration');
        return toSmtp(row);
      },
    }),

    route<SmtpInput>({
      method: 'PUT', path: '/api/admin/smtp', operationId: 'putSmtpConfig', tag: 'admin', access: 'admin',
      summary: 'Save the SMTP configuration; the password is stored encrypted',
      body: smtpWrite, readOnly: ['hasPassword', 'updatedAt'], response: smtpRead,
      async handler(ctx, { body }) {
        ctx.state.audit = { resourceType: 'smtp', resourceId: 'smtp', details: { fields: Object.keys(body) } };
        return toSmtp(await s.smtp.save(body));
      },
    }),

    route<{ to: string }>({
      method: 'POST', path: '/api/admin/smtp/test', operationId: 'testSmtp', tag: 'admin', access: 'admin',
      summary: 'Send a test email; 200 {delivered: true}, or 502 SERVICE_UNAVAILABLE with the SMTP server\'s answer',
      body: object({ to: email }, ['to']), response: object({ delivered: bool }), errors: [502],
      async handler(ctx, { body }) {
        await s.smtp.send({
          to: body.to, subject: 'Stevedore SMTP test',
          text: 'This is a test message from Stevedore: the SMTP configuration works.',
        });
        ctx.state.audit = { resourceType: 'smtp', resourceId: 'smtp', details: {} };
        return { delivered: true };
      },
    }),
  ];
}
