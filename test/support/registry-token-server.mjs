// A real, tiny token server for the Docker registry's bearer flow (distribution "token" auth),
// for the fleet's third registry front. GET /token?service=&scope= with Basic auth answers
// {token, expires_in}: an RS256 JWT whose x5c header carries the certificate the registry trusts
// (its rootcertbundle). Wrong or missing credentials: 401. Only node built-ins, so the fleet
// script starts it in a blink.  Usage: node registry-token-server.mjs ADDR PORT KEY CERT USER PASSWORD
import { createServer } from 'node:http';
import { createPrivateKey, createSign, randomUUID, X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';

const [addr, port, keyPath, certPath, user, password] = process.argv.slice(2);
const key = createPrivateKey(readFileSync(keyPath));
const certDer = new X509Certificate(readFileSync(certPath)).raw.toString('base64');
const b64url = (v) => Buffer.from(typeof v === 'string' ? v : JSON.stringify(v)).toString('base64url');

function jwt(claims) {
  const head = b64url({ typ: 'JWT', alg: 'RS256', x5c: [certDer] });
  const body = b64url(claims);
  const sig = createSign('RSA-SHA256').update(`${head}.${body}`).sign(key).toString('base64url');
  return `${head}.${body}.${sig}`;
}

createServer((req, res) => {
  const url = new URL(req.url, 'http://token');
  const auth = req.headers.authorization ?? '';
  const given = auth.startsWith('Basic ') ? Buffer.from(auth.slice(6), 'base64').toString() : null;
  if (url.pathname !== '/token') { res.writeHead(404).end(); return; }
  if (given !== `${user}:${password}`) {
    res.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify({ details: 'bad credentials' }));
    return;
  }
  const access = url.searchParams.getAll('scope').map((s) => {
    const [type, ...rest] = s.split(':');
    const actions = rest.pop().split(',');
    return { type, name: rest.join(':'), actions };
  });
  const now = Math.floor(Date.now() / 1000);
  const token = jwt({ iss: 'stevedore-fleet-token', sub: user, aud: url.searchParams.get('service'), exp: now + 300, nbf: now - 10, iat: now, jti: randomUUID(), access });
  res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ token, access_token: token, expires_in: 300, issued_at: new Date().toISOString() }));
}).listen(Number(port), addr);
