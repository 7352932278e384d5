import type { StaffRole } from '../../db/schema.js';

/** The operator roles, in a module of their own so that the operator CLI checks `--role` without loading the staff service. */
export const STAFF_ROLES: readonly StaffRole[] = ['admin', 'underwriter', 'support'];
