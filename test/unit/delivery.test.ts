import crypto from 'node:crypto';
import { expect } from 'chai';
import { normalize, retryDelay } from '../../controller/delivery/delivery-settings.js';
import { webhookHeaders } from '../../controller/delivery/http-post.js';
import { isAlertType, NOTIFICATION_TYPES } from '../../controller/notifications/types.js';

describe('delivery helpers', () => {
  const body = Buffer.from('{"a":1}');
  const hex = crypto.createHmac('sha256', 'k').update(body).digest('hex');

  it('signs outgoing bodies as sha256=<hex> and lets no custom header override the spec headers', () => {
    const h = webhookHeaders('{"a":1}', 'k', { 'User-Agent': 'x', 'X-Webhook-Signature': 'forged', 'X-Team': 'ops' });
    expect(h).to.deep.equal({ 'user-agent': 'Service-Webhook/1.0', 'x-webhook-signature': 'sha256=' + hex, 'content-type': 'application/json', 'x-team': 'ops' });
    expect(webhookHeaders('{}', null, { 'X-Webhook-Signature': 'forged' })).to.not.have.property('x-webhook-signature');
  });

  it('reads retry settings with the spec defaults and repeats the last delay', () => {
    const d = normalize({});
    expect(d).to.deep.equal({ webhookMaxRetries: 3, webhookTimeoutMs: 30000, webhookRetryDelaysMs: [1000, 5000, 15000] });
    expect([1, 2, 3, 4].map((n) => retryDelay(d, n))).to.deep.equal([1000, 5000, 15000, 15000]);
    expect(normalize({ webhookMaxRetries: 0, webhookRetryDelaysMs: [] }).webhookMaxRetries).to.equal(3);
  });

  it('gives every notification type a category, severity and bounce threshold', () => {
    for (const t of NOTIFICATION_TYPES) {
      expect(t.category).to.be.a('string');
      expect(['info', 'warning', 'error']).to.include(t.defaultSeverity);
      expect(t.bounceThreshold).to.be.at.least(1);
    }
    // only alert types bounce (at the check), every other type is sent on each occurrence
    for (const t of NOTIFICATION_TYPES.filter((x) => !isAlertType(x))) expect(t.bounceThreshold).to.equal(1);
    expect(NOTIFICATION_TYPES.filter(isAlertType).map((t) => t.code)).to.deep.equal(['health.failed']);
  });
});
