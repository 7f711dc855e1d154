# registry.sh - Debian docker-registry on the fleet bridge (sourced by up.sh). Two fronts share one
# storage: the open one (basic auth only with FLEET_REGISTRY_AUTH=1) and one that always asks for
# basic auth, for private-registry tests, and one that asks for a bearer token from a real token
# server (test/support/registry-token-server.mjs), for the registry client's token flow.
# write_registry_config NAME ADDR AUTH(0|1|token) USER PASSWORD
write_registry_config() {
  local name=$1 addr=$2 auth=$3 user=$4 pass=$5
  {
    echo "version: 0.1"
    echo "log: {level: warn, accesslog: {disabled: true}}"
    echo "storage:"
    echo "  filesystem: {rootdirectory: $FLEET_ROOT/registry/data}"
    echo "  delete: {enabled: true}"
    echo "  cache: {blobdescriptor: inmemory}"
    echo "http:"
    echo "  addr: $addr"
    echo "  secret: stevedore-fleet-$FLEET_ID"
    echo "  headers: {X-Content-Type-Options: [nosniff]}"
    if [ "$auth" = token ]; then
      echo "auth:"
      echo "  token: {realm: 'http://$(token_server_addr)/token', service: stevedore-fleet-registry, issuer: stevedore-fleet-token, rootcertbundle: $FLEET_ROOT/registry/token.crt}"
    elif [ "$auth" = 1 ]; then
      # bcrypt (-B) is the only htpasswd hash the registry accepts
      htpasswd -Bbn "$user" "$pass" >"$FLEET_ROOT/registry/$name.htpasswd" 2>/dev/null
      echo "auth:"
      echo "  htpasswd: {realm: stevedore-fleet, path: $FLEET_ROOT/registry/$name.htpasswd}"
    fi
  } >"$FLEET_ROOT/registry/$name.yml"
}
start_registry() {
  mkdir -p "$FLEET_ROOT/registry/data"
  write_registry_config registry "$(registry_addr)" "$FLEET_REGISTRY_AUTH" "$FLEET_REGISTRY_USER" "$FLEET_REGISTRY_PASSWORD"
  write_registry_config auth "$(auth_registry_addr)" 1 "$FLEET_AUTH_REGISTRY_USER" "$FLEET_AUTH_REGISTRY_PASSWORD"
  openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=stevedore-fleet-token \
    -keyout "$FLEET_ROOT/registry/token.key" -out "$FLEET_ROOT/registry/token.crt" >/dev/null 2>&1
  write_registry_config token "$(token_registry_addr)" token "" ""
  node "$FLEET_DIR/../support/registry-token-server.mjs" "$(registry_host)" "$FLEET_TOKEN_SERVER_PORT" \
    "$FLEET_ROOT/registry/token.key" "$FLEET_ROOT/registry/token.crt" "$FLEET_AUTH_REGISTRY_USER" "$FLEET_AUTH_REGISTRY_PASSWORD" \
    </dev/null >"$FLEET_ROOT/registry/token-server.log" 2>&1 9>&- &
  echo $! >"$FLEET_ROOT/registry/token-server.pid"
  local name
  for name in registry auth token; do
    "$REGISTRY_BIN" serve "$FLEET_ROOT/registry/$name.yml" </dev/null >"$FLEET_ROOT/registry/$name.log" 2>&1 9>&- &
    echo $! >"$FLEET_ROOT/registry/$name.pid"
  done
}
reg_answers() { local c; c=$(curl -s -o /dev/null -w '%{http_code}' --max-time 2 "http://$1/v2/"); [ "$c" = 200 ] || [ "$c" = 401 ]; }
reg_ok() { reg_answers "$(registry_addr)" && reg_answers "$(auth_registry_addr)" && reg_answers "$(token_registry_addr)" \
  && [ "$(curl -s -o /dev/null -w '%{http_code}' --max-time 2 "http://$(token_server_addr)/token")" = 401 ]; }
