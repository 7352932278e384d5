import { request } from './http.js';

/** The sandbox chain's control and explorer APIs (docs/sandbox-chain.md), over HTTP. */
export function chainControl(chain: { url: string; apiKey: string }) {
  const headers = { authorization: `Bearer ${chain.apiKey}` };
  const ok = async <T>(promise: Promise<{ status: number; body: unknown; text: string }>): Promise<T> => {
    const result = await promise;
    if (result.status >= 300) throw new Error(`sandbox chain answered ${result.status}: ${result.text}`);
    return result.body as T;
  };
  return {
    mine: (blocks = 1) =>
      ok<{ height: number }>(request(`${chain.url}/_control/mine`, { body: { blocks }, headers })),
    fault: (fault: 'drop' | 'fail' | 'slow' | 'duplicate_hash' | 'error_5xx', times = 1) =>
      ok(request(`${chain.url}/_control/faults`, { body: { fault, times }, headers })),
    latency: (latencyMs: number) =>
      ok(request(`${chain.url}/_control/faults`, { body: { latencyMs }, headers })),
    reset: () => ok(request(`${chain.url}/_control/reset`, { body: {}, headers })),
    setRate: (rate: string | null, at?: string) =>
      ok(request(`${chain.url}/_control/rate`, { body: { rate, ...(at ? { at } : {}) }, headers })),
    externalTransfer: (transfer: { network: string; to: string; amount: string }) =>
      ok<{ txHash: string }>(
        request(`${chain.url}/_control/external-transfers`, { body: transfer, headers }),
      ),
    transfers: async () =>
      (
        await ok<{
          data: Array<{
            idempotencyKey: string | null;
            txHash: string;
            status: string;
            amount: string;
            to: string;
          }>;
        }>(request(`${chain.url}/_control/transfers`, { headers }))
      ).data,
    transferByKey: (key: string) =>
      request<{ txHash: string; status: string }>(
        `${chain.url}/v1/transfers/by-key/${encodeURIComponent(key)}`,
        {
          headers,
        },
      ),
    transaction: (network: string, hash: string) =>
      request<{ status: string; confirmations: number; to: string; amount: string }>(
        `${chain.url}/v1/networks/${network}/transactions/${encodeURIComponent(hash)}`,
      ),
  };
}
