// A Git source's `previews` (docs/git-sources.md#previews) and the names a preview gets (pure):
// the API validates the config with it, the webhook and the reconciler read it.
import { labelsProblem, type ServerSelector } from '../../placement/labels.js';
import { HOST_PATTERN } from '../../model/ingress.js';

export interface PreviewsConfig {
  /** Each open pull request against the source's branch gets a preview environment. */
  pullRequests: boolean;
  /** Branch previews: not built yet, refused when set. */
  branches?: string;
  /** The parent's servers a preview may run on (every pair must match); it never runs elsewhere. */
  serverSelector: ServerSelector;
  /** Hours since the pull request last changed after which its preview is torn down. */
  ttlHours?: number;
  /** The parent's secrets a preview may use, by reference (`${NAME}` in a service's env); no other. */
  secrets?: string[];
  /** The ingress host of a preview, `{number}` the pull request's: `pr-{number}.example.com`. */
  hostTemplate?: string;
}

const SECRET_KEY = /^[A-Z_][A-Z0-9_]*$/;
const hostRe = new RegExp(HOST_PATTERN);
export const MAX_TTL_HOURS = 24 * 365;

/** What is wrong with a previews config beyond its schema (field under `previews`, message), or null. */
export function previewsProblem(p: PreviewsConfig): { field: string; message: string } | null {
  if (p.branches !== undefined) return { field: 'previews.branches', message: 'branch previews are not built yet: only pullRequests previews are' };
  const labels = p.serverSelector?.matchLabels ?? {};
  if (!Object.keys(labels).length) return { field: 'previews.serverSelector.matchLabels', message: 'must name at least one label: a preview runs only on the parent\'s servers it selects' };
  const bad = labelsProblem(labels);
  if (bad) return { field: 'previews.serverSelector.matchLabels', message: bad };
  if (p.ttlHours !== undefined && (!Number.isInteger(p.ttlHours) || p.ttlHours < 1 || p.ttlHours > MAX_TTL_HOURS)) {
    return { field: 'previews.ttlHours', message: `must be a whole number of hours from 1 to ${MAX_TTL_HOURS}` };
  }
  const secret = (p.secrets ?? []).find((k) => !SECRET_KEY.test(k));
  if (secret !== undefined) return { field: 'previews.secrets', message: `"${secret}" is not a secret key (upper-case letters, digits and _)` };
  if (p.hostTemplate !== undefined) {
    if (!p.hostTemplate.includes('{number}')) return { field: 'previews.hostTemplate', message: 'must hold {number} (the pull request\'s): each preview needs a host of its own' };
    if (!hostRe.test(previewHost(p.hostTemplate, 1))) return { field: 'previews.hostTemplate', message: `${previewHost(p.hostTemplate, 1)} (for pull request 1) is not a domain name` };
  }
  return null;
}

/** The preview environment of pull request `number` of the environment `parent`. */
export const previewEnvironmentName = (parent: string, number: number) => `${parent}-pr-${number}`;

/** What names unique on a server (containers) get in a preview. */
export const previewSuffix = (number: number) => `-pr-${number}`;

export const previewHost = (template: string, number: number) => template.split('{number}').join(String(number)).toLowerCase();

/** The URL of a preview: its host from hostTemplate, or null without one. */
export const previewUrl = (config: Pick<PreviewsConfig, 'hostTemplate'> | null | undefined, number: number): string | null =>
  (config?.hostTemplate ? `https://${previewHost(config.hostTemplate, number)}` : null);

/** When a preview last changed `at` is torn down, or null without a TTL. */
export const previewExpiry = (config: Pick<PreviewsConfig, 'ttlHours'> | null | undefined, at: Date): Date | null =>
  (config?.ttlHours ? new Date(new Date(at).getTime() + config.ttlHours * 3_600_000) : null);
