#!/usr/bin/env bash
# mariadb-image.sh - build a MariaDB container image for the fleet registry from this machine's own
# MariaDB binaries (Debian's mariadb-server-core + mariadb-client; no internet, no base image):
# busybox + mariadbd + the client tools + the shared libraries ldd names, imported with
# `docker import` on s1's daemon and pushed as $REG/fleet/mariadb:<version>. Run after up.sh
# (it reads $FLEET_ROOT/fleet.env). ~5 s.
#
# The image behaves like the usual mariadb image for the parts tests need:
#   MARIADB_ROOT_PASSWORD (or MYSQL_ROOT_PASSWORD; default mariadb) for root@localhost and root@%,
#   MARIADB_DATABASE (or MYSQL_DATABASE) created on first start, data in /var/lib/mysql, port 3306,
#   mariadb / mariadb-dump / mariadb-admin on PATH (so `docker exec c mariadb-dump …` works).
# A small redo log (8 MB, not 96) keeps the image and each container's first write small.
set -euo pipefail
RECIPE_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$RECIPE_DIR/common.sh"
. "$RECIPE_DIR/lib/rootfs.sh"
set -a; . "$FLEET_ROOT/fleet.env"; set +a
[ -x /usr/sbin/mariadbd ] && [ -x /usr/bin/mariadb-dump ] \
  || die "no MariaDB binaries (apt-get install -y mariadb-server-core mariadb-client)"
version=$(/usr/sbin/mariadbd --version | grep -o 'Ver [0-9]*\.[0-9]*' | cut -d' ' -f2)
b=$FLEET_ROOT/build-mariadb; rm -rf "$b"; mkdir -p "$b/rootfs"/{run/mysqld,var/lib/mysql,usr/bin,usr/sbin,usr/share}
r=$b/rootfs

rootfs_busybox "$r"
# the server, what mariadb-install-db calls, the clients the database type's commands name
bins=(/usr/sbin/mariadbd /usr/bin/mariadb-install-db /usr/bin/my_print_defaults /usr/bin/resolveip
  /usr/bin/mariadb /usr/bin/mariadb-dump /usr/bin/mariadb-admin)
for f in "${bins[@]}"; do cp -L "$f" "$r$f"; done
for alias in mysql:mariadb mysqldump:mariadb-dump mysqladmin:mariadb-admin; do ln -sf "${alias#*:}" "$r/usr/bin/${alias%%:*}"; done
cp -a /usr/share/mysql "$r/usr/share/"   # system tables SQL, error messages, charsets
[ -d /usr/share/zoneinfo ] && cp -a /usr/share/zoneinfo "$r/usr/share/"
rootfs_libraries "$r" "${bins[@]}"
rootfs_users "$r" mysql /var/lib/mysql /bin/false
cat >"$r/docker-entrypoint.sh" <<'EOF'
#!/bin/sh
# first start: root's password and the database through --init-file (run by
# the server before it accepts connections, so "ready" means "initialised")
set -e
DATADIR=/var/lib/mysql
mkdir -p "$DATADIR" /run/mysqld
chown -R mysql:mysql "$DATADIR" /run/mysqld
init=
if [ ! -d "$DATADIR/mysql" ]; then   # an empty volume: the image's own system tables are not there
  mariadb-install-db --user=mysql --datadir="$DATADIR" --auth-root-authentication-method=normal \
    --skip-test-db --skip-name-resolve --innodb-log-file-size=8M >/tmp/install-db.log 2>&1
  touch "$DATADIR/.first-start"
fi
if [ -e "$DATADIR/.first-start" ]; then
  rm -f "$DATADIR/.first-start"
  pw=${MARIADB_ROOT_PASSWORD:-${MYSQL_ROOT_PASSWORD:-mariadb}}
  db=${MARIADB_DATABASE:-${MYSQL_DATABASE:-}}
  {
    echo "ALTER USER 'root'@'localhost' IDENTIFIED BY '$pw';"
    echo "CREATE USER 'root'@'%' IDENTIFIED BY '$pw';"
    echo "GRANT ALL ON *.* TO 'root'@'%' WITH GRANT OPTION;"
    [ -z "$db" ] || echo "CREATE DATABASE IF NOT EXISTS \`$db\`;"
  } >/run/mysqld/init.sql
  chown mysql /run/mysqld/init.sql; chmod 600 /run/mysqld/init.sql
  init=--init-file=/run/mysqld/init.sql
fi
exec mariadbd --user=mysql --datadir="$DATADIR" --socket=/run/mysqld/mysqld.sock \
  --bind-address=0.0.0.0 --skip-name-resolve --innodb-log-file-size=8M $init
EOF
chmod 755 "$r/docker-entrypoint.sh"
# the system tables are made once here, not at every container's first start (a scratch container
# for a restore drill would otherwise spend most of its start in mariadb-install-db)
mariadb-install-db --no-defaults --user=root --datadir="$r/var/lib/mysql" --auth-root-authentication-method=normal \
  --skip-test-db --skip-name-resolve --innodb-log-file-size=8M >"$b/install-db.log" 2>&1 || die "mariadb-install-db failed (see $b/install-db.log)"
touch "$r/var/lib/mysql/.first-start"
chown -R 999:999 "$r/var/lib/mysql" "$r/run/mysqld"
push_rootfs_image "$b" mariadb "$version" FLEET_MARIADB_IMAGE <<DOCKERFILE
ENV PATH=/usr/sbin:/usr/bin:/bin
EXPOSE 3306
STOPSIGNAL SIGTERM
HEALTHCHECK --interval=1s --timeout=2s --start-period=2s --retries=60 CMD ["/usr/bin/mariadb-admin", "ping", "-h", "127.0.0.1", "--silent"]
ENTRYPOINT ["/docker-entrypoint.sh"]
DOCKERFILE
