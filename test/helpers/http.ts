export interface HttpResult<T = unknown> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface ErrorBody {
  error: {
    code: string;
    message: string;
    requestId: string;
    details?: { issues?: Array<{ path: string; in: string; code: string; message: string }> };
  };
}

/** A real HTTP request over a socket; bodies are parsed as JSON when they are JSON. */
export async function request<T = unknown>(
  url: string,
  init: { method?: string; body?: unknown; rawBody?: string | Buffer; headers?: Record<string, string> } = {},
): Promise<HttpResult<T>> {
  const headers: Record<string, string> = { ...init.headers };
  let body: string | Buffer | undefined;
  if (init.rawBody !== undefined) body = init.rawBody;
  else if (init.body !== undefined) {
    body = JSON.stringify(init.body);
    headers['content-type'] ??= 'application/json';
  }
  const response = await fetch(url, {
    method: init.method ?? (body === undefined ? 'GET' : 'POST'),
    headers,
    body,
  });
  const text = await response.text();
  let parsed: unknown = text;
  if ((response.headers.get('content-type') ?? '').includes('application/json') && text !== '') {
    parsed = JSON.parse(text);
  }
  return { status: response.status, headers: response.headers, body: parsed as T, text };
}

export function validApplication(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    companyName: 'Anatolia Trading Ltd',
    jurisdiction: 'TR',
    vertical: 'forex',
    monthlyVolumeUSD: 250_000,
    contactName: 'Ayşe Yılmaz',
    contactEmail: 'ayse@anatolia.example',
    ...overrides,
  };
}

/** A valid POST /v1/charges body; every call a fresh merchantReference. */
export function validCharge(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    amount: 12550,
    currency: 'TRY',
    paymentMethod: 'credit_card_tr',
    merchantReference: `order-${Math.random().toString(36).slice(2, 12)}`,
    ...overrides,
  };
}
