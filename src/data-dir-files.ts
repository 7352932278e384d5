/**
 * Files a gateway writes into DATA_DIR for the operator CLI, in a module of their own so that the CLI
 * reads their names without loading the gateway.
 */

/** Where a running gateway with the operator role tells the CLI its operator URL and token (0600). */
export const CLI_TOKEN_FILE = 'operator-cli-token';
/**
 * Which database the gateway using this DATA_DIR runs on (no connection string): the CLI reads it so that
 * it never opens an empty embedded database beside a gateway that runs on PostgreSQL.
 */
export const DATABASE_KIND_FILE = 'gateway-database.json';
