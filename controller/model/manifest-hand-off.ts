/** A service a manifest apply created or changed (controller/manifests/apply.ts). */
export interface ChangedService { id: string; environmentId: string; name: string; imageTag: string }

/**
 * `Services.handOff`: what a manifest apply hands on once its transaction committed
 * (controller/manifests/run-apply.ts). The deployment reconciler implements it
 * (reconcilers/manifest-hand-off.ts, through the entrance) and start-up builds it
 * (controller/model/reconcilers.ts), so the manifest pipeline never imports reconcilers/.
 */
export interface ManifestHandOff {
  /** Per environment, one plan over the deployments whose container differs; the plan ids. */
  startPlans(changed: ChangedService[], name: string): Promise<string[]>;
  /** Per environment, one plan of remove steps for the containers of deployments the apply deleted; the plan ids. */
  removeContainers(removed: Array<Record<string, any>>, name: string): Promise<string[]>;
  /** Per environment, the deployments of services placed by selector follow the servers' labels; the plan ids (removals, heals). */
  placeServices(environmentIds: string[]): Promise<string[]>;
}
