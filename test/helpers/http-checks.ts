// Checks that many test files make the same way over HTTP.
import { expect } from 'vitest';
import { WebClient } from './accounts.js';

/**
 * Each dashboard path, asked for without a session, sends to the login page (303). The anonymous client
 * that asked, for the file's further checks.
 */
export async function expectLoginFirst(web: string, paths: string[]): Promise<WebClient> {
  const anonymous = new WebClient(web);
  for (const path of paths) {
    const page = await anonymous.get(path);
    expect(page.status, path).toBe(303);
    expect(page.location, path).toMatch(/^\/login\?/);
  }
  return anonymous;
}

/** An item of a dashboard list page: `<li data-…-id="…" data-status="…">…</li>`. */
export interface ListedItem {
  id: string;
  status: string;
  html: string;
}

/** The items of a dashboard list page whose `li` carry `data-<name>-id`, in the page's order. */
export function listedIn(html: string, name: string): ListedItem[] {
  const item = new RegExp(`<li data-${name}-id="([^"]+)" data-status="([^"]+)">([\\s\\S]*?)<\\/li>`, 'g');
  return [...html.matchAll(item)].map((match) => ({
    id: match[1] ?? '',
    status: match[2] ?? '',
    html: match[3] ?? '',
  }));
}
