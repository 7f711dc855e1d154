// TCP connect and TLS certificate checks of a port, made from the server (HostAccess.connectTcp):
// a port published on the server's 127.0.0.1 is checked as its neighbours see it.
import tls from 'node:tls';
import type { Services } from '../services.js';
import type { CheckStatus } from '../store/repositories/health-logs.js';
import type { CertExpiryDays } from '../config/config.js';

export interface PortCheck {
  status: CheckStatus;
  latencyMs: number;
  error: string | null;
  details: Record<string, unknown>;
}

const DAY_MS = 86_400_000;

function deadline<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([p, new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms);
  })]).finally(() => clearTimeout(timer));
}

/** Opens and closes a TCP connection to host:port from the server. Never throws. */
export async function tcpCheck(s: Services, serverId: string, host: string, port: number, timeoutMs: number): Promise<PortCheck> {
  const started = performance.now();
  const ms = () => Math.round(performance.now() - started);
  try {
    const conn = await deadline(s.hosts.connectTcp(serverId, host, port), timeoutMs, `connect to ${host}:${port}`);
    conn.close();
    return { status: 'ok', latencyMs: ms(), error: null, details: {} };
  } catch (err) {
    return { status: 'failed', latencyMs: ms(), error: (err as Error).message.slice(0, 500), details: {} };
  }
}

/** Pure: the verdict on a certificate valid until `validTo`, as seen at `now` (thresholds: CERT_EXPIRY_*_DAYS). */
export function certVerdict(validTo: Date, now: Date, days: CertExpiryDays): { status: CheckStatus; daysToExpiry: number; error: string | null } {
  const daysToExpiry = Math.floor((validTo.getTime() - now.getTime()) / DAY_MS);
  if (validTo.getTime() <= now.getTime()) return { status: 'failed', daysToExpiry, error: `certificate expired on ${validTo.toISOString()}` };
  if (daysToExpiry < days.failDays) return { status: 'failed', daysToExpiry, error: `certificate expires in ${daysToExpiry} days (${validTo.toISOString()})` };
  if (daysToExpiry < days.warnDays) return { status: 'warning', daysToExpiry, error: `certificate expires in ${daysToExpiry} days (${validTo.toISOString()})` };
  return { status: 'ok', daysToExpiry, error: null };
}

/**
 * The TLS certificate the port presents (no trust check: a self-signed certificate is read too).
 * null when the port does not speak TLS or cannot be reached (the TCP check reports reachability).
 */
export async function certCheck(s: Services, serverId: string, host: string, port: number, timeoutMs: number, now = () => new Date()): Promise<PortCheck | null> {
  const started = performance.now();
  let conn;
  try {
    conn = await deadline(s.hosts.connectTcp(serverId, host, port), timeoutMs, `connect to ${host}:${port}`);
  } catch {
    return null;
  }
  try {
    const cert = await deadline(new Promise<tls.PeerCertificate>((resolve, reject) => {
      const socket = tls.connect({ socket: conn.stream, rejectUnauthorized: false, servername: /^[\d.]+$/.test(host) ? undefined : host });
      socket.once('secureConnect', () => { resolve(socket.getPeerCertificate()); socket.destroy(); });
      socket.once('error', reject);
    }), timeoutMs, `TLS handshake with ${host}:${port}`);
    if (!cert?.valid_to) return null;
    const validTo = new Date(cert.valid_to);
    const v = certVerdict(validTo, now(), s.config.certExpiry);
    const subject = typeof cert.subject?.CN === 'string' ? cert.subject.CN : null;
    return {
      status: v.status, latencyMs: Math.round(performance.now() - started), error: v.error,
      details: { daysToExpiry: v.daysToExpiry, validTo: validTo.toISOString(), subject, selfSigned: cert.issuer?.CN === cert.subject?.CN },
    };
  } catch {
    return null;
  } finally {
    conn.close();
  }
}
