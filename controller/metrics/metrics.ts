// What `GET /metrics` serves, in Prometheus's text format through prom-client (the client
// Prometheus's own docs point Node users to): counters and histograms the code paths feed as
// things happen, and gauges read when Prometheus scrapes (queue depth, pools, stored outcomes).
// Names are `stevedore_*` in base units (seconds, bytes), counters end in `_total`.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

const SECONDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const DEPLOY_SECONDS = [1, 2.5, 5, 10, 20, 30, 60, 120, 300, 600];
/** Fewer buckets per service: a series each per service and outcome. */
const SERVICE_DEPLOY_SECONDS = [5, 15, 30, 60, 120, 300, 600];

/** One (method, route, status) series of the HTTP figures. */
export interface HttpSeries { answered(seconds: number): void }

/** A gauge whose values are read at scrape time. */
export type Collect = (set: (labels: Record<string, string>, value: number) => void) => Promise<void> | void;

export class Metrics {
  readonly registry = new Registry();
  private readonly r = [this.registry];
  /**
   * The series per service and server name environments, services, servers and the tags they run:
   * served only to a scraper that sends METRICS_TOKEN, never on an open /metrics.
   */
  readonly perService: boolean;

  /** Answers counted since the counter was last read, per series: added to it when read (a scrape), not per request. */
  private readonly httpPending: Array<{ labels: Record<string, string>; count: number }> = [];
  /** route → status → method → recorder: found without building a key per request. */
  private readonly httpRecorders = new Map<string, Map<number, Map<string, HttpSeries>>>();
  readonly httpRequests: Counter = new Counter({
    name: 'stevedore_http_requests_total', help: 'HTTP requests answered, by method, route template and status',
    labelNames: ['method', 'route', 'status'], registers: this.r,
    collect: () => {
      for (const p of this.httpPending) {
        if (p.count === 0) continue;
        this.httpRequests.inc(p.labels, p.count);
        p.count = 0;
      }
    },
  });
  readonly httpDuration = new Histogram({
    name: 'stevedore_http_request_duration_seconds', help: 'Time to answer an HTTP request, by method, route template and status',
    labelNames: ['method', 'route', 'status'], buckets: SECONDS, registers: this.r,
  });
  readonly reconcileDuration = new Histogram({
    name: 'stevedore_reconcile_duration_seconds', help: 'Time of one reconcile pass, by kind and result (ok, error, terminal)',
    labelNames: ['kind', 'result'], buckets: SECONDS, registers: this.r,
  });
  readonly reconcileRetries = new Counter({
    name: 'stevedore_work_queue_retries_total', help: 'Keys put back in the work queue after a failed reconcile, by kind',
    labelNames: ['kind'], registers: this.r,
  });
  readonly plans = new Counter({
    name: 'stevedore_plans_total', help: 'Deployment plans that ended, by outcome and trigger', labelNames: ['outcome', 'trigger'], registers: this.r,
  });
  readonly planDuration = new Histogram({
    name: 'stevedore_plan_duration_seconds', help: 'Time from a plan\'s start to its end (a deploy, with its rollback if any), by outcome',
    labelNames: ['outcome'], buckets: DEPLOY_SECONDS, registers: this.r,
  });
  /** Per service (perService only): a plan's duration for each service it deployed, and heal plans. */
  readonly servicePlanDuration: Histogram;
  readonly serviceHeals: Counter;
  readonly jobRuns = new Counter({
    name: 'stevedore_job_runs_total', help: 'Occurrences and triggers of scheduled jobs recorded by this replica, by result (succeeded, failed, skipped, missed, replaced)',
    labelNames: ['result'], registers: this.r,
  });
  readonly dockerEventReconnects = new Counter({
    name: 'stevedore_docker_event_reconnects_total', help: 'Docker event streams of servers opened again after they were lost', registers: this.r,
  });

  constructor({ perService = false }: { perService?: boolean } = {}) {
    this.perService = perService;
    const registers = perService ? this.r : [];
    this.servicePlanDuration = new Histogram({
      name: 'stevedore_service_plan_duration_seconds', help: 'Time from the start to the end of a plan that deployed the service (rollback included), by environment, service and outcome',
      labelNames: ['environment', 'service', 'outcome'], buckets: SERVICE_DEPLOY_SECONDS, registers,
    });
    this.serviceHeals = new Counter({
      name: 'stevedore_service_heals_total', help: 'Heal plans (trigger drift-heal: driftPolicy heal, the Heal button, placement) that ended, by environment, service and outcome',
      labelNames: ['environment', 'service', 'outcome'], registers,
    });
    collectDefaultMetrics({ register: this.registry, prefix: 'stevedore_' });
    // gauges named like counters: Prometheus's rules refuse them; nodejs_active_* say the same by type
    for (const g of ['handles', 'requests', 'resources']) this.registry.removeSingleMetric(`stevedore_nodejs_active_${g}_total`);
  }

  /**
   * The recorder of one (method, route, status) series of the HTTP figures, kept by the caller:
   * the count goes to httpRequests when it is read, the duration straight to its histogram child.
   */
  httpSeries(method: string, route: string, status: number): HttpSeries {
    let byStatus = this.httpRecorders.get(route);
    if (!byStatus) this.httpRecorders.set(route, byStatus = new Map());
    let byMethod = byStatus.get(status);
    if (!byMethod) byStatus.set(status, byMethod = new Map());
    let recorder = byMethod.get(method);
    if (!recorder) {
      const labels = { method, route, status: String(status) };
      const duration = this.httpDuration.labels(labels);
      const pending = { labels, count: 0 };
      this.httpPending.push(pending);
      recorder = {
        answered(seconds: number) {
          pending.count++;
          duration.observe(seconds);
        },
      };
      byMethod.set(method, recorder);
    }
    return recorder;
  }

  /** A gauge read when scraped; `collect` sets each labelled value (a failed read leaves it out). */
  gauge(name: string, help: string, labelNames: string[], collect: Collect): void {
    new Gauge({
      name, help, labelNames, registers: this.r,
      async collect() {
        this.reset();
        await collect((labels, value) => this.set(labels, value));
      },
    });
  }

  /** The text Prometheus scrapes. */
  text(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}
