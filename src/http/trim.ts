import type { FastifyRequest } from 'fastify';

/** Trims every string of a JSON body, at any depth, before validation. */
export async function trimBodyStrings(request: FastifyRequest): Promise<void> {
  request.body = trimDeep(request.body);
}

function trimDeep(value: unknown): unknown {
  if (typeof value === 'string') return value.trim();
  if (Array.isArray(value)) return value.map(trimDeep);
  if (value !== null && typeof value === 'object') {
    const result: Record<string, unknown> = {};
    for (const [key, member] of Object.entries(value)) result[key] = trimDeep(member);
    return result;
  }
  return value;
}
