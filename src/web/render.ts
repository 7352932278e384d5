import { Eta } from 'eta';
import path from 'node:path';
import { webDir } from '../paths.js';

export interface Renderer {
  render(view: string, data: Record<string, unknown>): string;
}

/** Server-rendered pages; every interpolation is HTML-escaped unless a template says `<%~`. */
export function createRenderer(options: { cache: boolean }): Renderer {
  const eta = new Eta({
    views: path.join(webDir, 'views'),
    autoEscape: true,
    cache: options.cache,
    autoTrim: false,
  });
  return { render: (view, data) => eta.render(view, data) };
}

/** JSON for a `<script type="application/json">` block: no sequence in it can close the element. */
export function jsonForScript(value: unknown): string {
  return JSON.stringify(value).replace(/</g, '\\u003c').replace(/>/g, '\\u003e').replace(/&/g, '\\u0026');
}

export const PAGE_CSP: Record<string, string[]> = {
  defaultSrc: ["'none'"],
  scriptSrc: ["'self'"],
  styleSrc: ["'self'"],
  imgSrc: ["'self'", 'data:'],
  connectSrc: ["'self'"],
  formAction: ["'self'"],
  frameAncestors: ["'none'"],
  baseUri: ["'none'"],
};
