// Names a start-first switch gives on a server (docs/deploys.md).

/** The Docker network of an environment's start-first services, where each is reached by its service name. */
export const environmentNetworkName = (environmentId: string) => `stevedore-${environmentId}`;

/** The name a start-first deploy gives the new container while the old one still serves. */
export const nextContainerName = (containerName: string) => `${containerName}-stevedore-next`;
