# registry.sh - Debian docker-registry on the fleet bridge (sourced by up.sh)
start_registry() {
  mkdir -p "$FLEET_ROOT/registry/data"
  {
    echo "version: 0.1"
    echo "log: {level: warn, accesslog: {disabled: true}}"
    echo "storage:"
    echo "  filesystem: {rootdirectory: $FLEET_ROOT/registry/data}"
    echo "  delete: {enabled: true}"
    echo "  cache: {blobdescriptor: inmemory}"
    echo "http:"
    echo "  addr: $(registry_addr)"
    echo "  secret: stevedore-fleet-$FLEET_ID"
    echo "  headers: {X-Content-Type-Options: [nosniff]}"
    if [ "$FLEET_REGISTRY_AUTH" = 1 ]; then
      # bcrypt (-B) is the only htpasswd hash the registry accepts
      htpasswd -Bbn "$FLEET_REGISTRY_USER" "$FLEET_REGISTRY_PASSWORD" >"$FLEET_ROOT/registry/htpasswd" 2>/dev/null
      echo "auth:"
      echo "  htpasswd: {realm: stevedore-fleet, path: $FLEET_ROOT/registry/htpasswd}"
    fi
  } >"$FLEET_ROOT/registry/config.yml"
  "$REGISTRY_BIN" serve "$FLEET_ROOT/registry/config.yml" </dev/null >"$FLEET_ROOT/registry/registry.log" 2>&1 9>&- &
  echo $! >"$FLEET_ROOT/registry/registry.pid"
}
reg_ok() { local c; c=$(curl -s -o /dev/null -w '%{http_code}' --max-time 2 "http://$(registry_addr)/v2/"); [ "$c" = 200 ] || [ "$c" = 401 ]; }
