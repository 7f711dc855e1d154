# images.sh - build the stevedore-test/* images from static busybox on s1 and push them (sourced by up.sh).
# No pulls: the base is a `docker import` of a rootfs we assemble; the legacy builder (DOCKER_BUILDKIT=0)
# builds FROM it because Docker CLI 28 without buildx would otherwise refuse.
web_dockerfile() {   # web_dockerfile HEALTH_CMD
  cat <<DF
FROM stevedore-test/busybox:base
ARG VERSION=v1
ENV VERSION=\$VERSION
COPY index.html /www/index.html
EXPOSE 80
# a generous timeout: on a busy machine docker exec alone can take seconds, and a slow check
# of the healthy image must not read as unhealthy (the unhealthy one fails at once anyway)
HEALTHCHECK --interval=1s --timeout=10s --start-period=1s --retries=2 CMD $1
# sh as PID 1 with a TERM trap: busybox httpd as PID 1 ignores SIGTERM, and every stop would wait
# for the 10 s kill timeout
CMD ["sh", "-c", "trap 'echo web \$VERSION stopping; exit 0' TERM INT; echo web \$VERSION listening on :80; httpd -f -v -p 80 -h /www & wait"]
DF
}
build_and_push_images() {
  local b=$FLEET_ROOT/build a v
  mkdir -p "$b/rootfs/www"
  rootfs_busybox "$b/rootfs"
  rootfs_users "$b/rootfs"
  for v in v1 v2 unhealthy; do
    mkdir -p "$b/ctx-$v"
    printf '<html><body><h1>web %s</h1></body></html>\n' "$v" >"$b/ctx-$v/index.html"
    if [ "$v" = unhealthy ]; then web_dockerfile '["false"]'; else web_dockerfile 'wget -q -O /dev/null http://127.0.0.1:80/ || exit 1'; fi >"$b/ctx-$v/Dockerfile"
  done
  (
    export DOCKER_HOST=unix://$FLEET_ROOT/s1/docker.sock DOCKER_CONFIG=$b/docker-config DOCKER_BUILDKIT=0
    tar -C "$b/rootfs" -cf - . | docker import --change 'CMD ["sh"]' - stevedore-test/busybox:base >/dev/null
    pids=()
    for v in v1 v2 unhealthy; do
      docker build -q --build-arg VERSION=$v -t "$REG/stevedore-test/web:$v" "$b/ctx-$v" >"$b/build-$v.log" 2>&1 &
      pids+=($!)
    done
    for p in "${pids[@]}"; do wait "$p"; done
    docker tag stevedore-test/busybox:base "$REG/stevedore-test/busybox:base"
    if [ "$FLEET_REGISTRY_AUTH" = 1 ]; then
      echo "$FLEET_REGISTRY_PASSWORD" | docker login -u "$FLEET_REGISTRY_USER" --password-stdin "$REG" >"$b/login.log" 2>&1
    fi
    docker push "$REG/stevedore-test/web:v1" >"$b/push.log" 2>&1   # first push uploads the shared base layer
    pids=()
    for t in web:v2 web:unhealthy busybox:base; do
      docker push "$REG/stevedore-test/$t" >>"$b/push.log" 2>&1 &
      pids+=($!)
    done
    for p in "${pids[@]}"; do wait "$p"; done
    # leave s1 as empty as the other servers: every server has to pull
    docker rmi -f "$REG/stevedore-test/web:v1" "$REG/stevedore-test/web:v2" "$REG/stevedore-test/web:unhealthy" \
      "$REG/stevedore-test/busybox:base" stevedore-test/busybox:base >/dev/null
    docker image prune -af >/dev/null; docker container prune -f >/dev/null
  ) 9>&-
}
