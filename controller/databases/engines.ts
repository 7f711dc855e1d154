/**
 * What the controller must know of a database engine beyond its type's commands: how the
 * password reaches a command (an environment variable of `docker exec`, never an argument of the
 * dump tool) and how a scratch container of its image is started for restores and drills.
 */
export interface Engine {
  /** The client tools read the password from this variable. */
  passwordEnv: string;
  /** Environment of a scratch container: creates the database and its user on first start. */
  scratchEnv(databaseName: string, user: string, password: string): Record<string, string>;
}

const ENGINES: Record<string, Engine> = {
  postgres: {
    passwordEnv: 'PGPASSWORD',
    scratchEnv: (db, user, password) => ({ POSTGRES_DB: db, POSTGRES_USER: user, POSTGRES_PASSWORD: password }),
  },
  mysql: {
    passwordEnv: 'MYSQL_PWD',
    scratchEnv: (db, _user, password) => ({ MYSQL_DATABASE: db, MYSQL_ROOT_PASSWORD: password }),
  },
  mariadb: {
    passwordEnv: 'MYSQL_PWD',
    scratchEnv: (db, _user, password) => ({ MARIADB_DATABASE: db, MARIADB_ROOT_PASSWORD: password }),
  },
};

/** The engine of a database type, by the type's name; a custom type named like one behaves like it. */
export function engineOf(type: string): Engine | undefined {
  return ENGINES[type];
}

/** The user a scratch container's commands run as (mysql/mariadb scratch containers only create root). */
export function scratchUser(type: string, user: string): string {
  return type === 'postgres' ? user : 'root';
}
