/**
 * The one naming of audit `resourceType`: the plural kebab-case URL segment of the resource
 * (`services`, `container-images`, `chat-channels`, `webhook-subscriptions`), as the API's tags
 * and paths name it. API writes default to their route's tag; manifest applies and system
 * writes use the same names, so one `?resourceType=` filter finds every change to a kind.
 */
export function resourceTypeOfKind(kind: string): string {
  const kebab = kind.replace(/([a-z0-9])([A-Z])/g, '$1-$2').toLowerCase();
  return kebab.endsWith('y') ? `${kebab.slice(0, -1)}ies` : `${kebab}s`;
}
