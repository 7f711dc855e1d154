import type { ChatRoutingReads } from '../store/repositories/chat-routing-reads.js';
import type { NotificationType } from '../notifications/types.js';

/**
 * The spec's three fan-out rules for chat (interface-spec, "notifications" setting):
 * - a type routed to more than one channel: an environment override collapses it to that channel;
 * - an unrouted type: the override stands in for the global default channel;
 * - a type routed to exactly one channel: unaffected.
 * Only enabled channels count; a disabled override or default is as good as none.
 */
export function resolveChannels(routed: string[], override: string | null, defaultChannel: string | null): string[] {
  const unique = [...new Set(routed)];
  if (unique.length === 1) return unique;
  if (unique.length > 1) return override ? [override] : unique;
  if (override) return [override];
  return defaultChannel ? [defaultChannel] : [];
}

/**
 * Reads the channels, routings and default once (per fan-out batch) and returns the resolver;
 * environment overrides are read on first use.
 */
export async function chatResolver(reads: ChatRoutingReads): Promise<(type: string, environmentId: string | null) => Promise<string[]>> {
  const enabled = await reads.enabledChannels();
  if (enabled.length === 0) return async () => [];
  const enabledIds = new Set(enabled.map((c) => c.id));
  const routings = await reads.routings();
  const routed = new Map<string, string[]>();
  for (const r of routings) {
    if (enabledIds.has(r.chatChannelId)) routed.set(r.type, [...(routed.get(r.type) ?? []), r.chatChannelId]);
  }
  const def = enabled.find((c) => c.isDefault)?.id ?? null;
  const overrides = new Map<string, string | null>();
  return async (type, environmentId) => {
    let override: string | null = null;
    if (environmentId) {
      if (!overrides.has(environmentId)) {
        const id = await reads.overrideOf(environmentId);
        overrides.set(environmentId, id && enabledIds.has(id) ? id : null);
      }
      override = overrides.get(environmentId) ?? null;
    }
    return resolveChannels(routed.get(type) ?? [], override, def);
  };
}

/** The channels one event goes to (reads everything; chatResolver for batches). */
export async function channelsFor(reads: ChatRoutingReads, type: string, environmentId: string | null): Promise<string[]> {
  return (await chatResolver(reads))(type, environmentId);
}

/** Slack-compatible incoming-webhook body: {text, blocks}. */
export function chatPayload(t: Pick<NotificationType, 'title' | 'defaultSeverity'> | null, text: string, environmentName: string | null) {
  const icon = t?.defaultSeverity === 'error' ? ':red_circle:' : t?.defaultSeverity === 'warning' ? ':warning:' : ':information_source:';
  const head = `${icon} *${t?.title ?? 'Stevedore'}*${environmentName ? ` in \`${environmentName}\`` : ''}`;
  return {
    text: `${t?.title ?? 'Stevedore'}${environmentName ? ` [${environmentName}]` : ''}: ${text}`,
    blocks: [
      { type: 'section', text: { type: 'mrkdwn', text: head } },
      { type: 'section', text: { type: 'mrkdwn', text } },
    ],
  };
}
