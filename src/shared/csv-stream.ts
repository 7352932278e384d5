import { pipeline, Readable } from 'node:stream';
import { stringify } from 'csv-stringify';
import type { Cursor } from './pagination.js';

/**
 * CSV written as it is read (docs/exports.md): rows come from keyset pages of one
 * query each, go through csv-stringify into the response, and the next page is read only when the
 * client has taken the previous rows (stream backpressure). At most one page of rows is in memory,
 * whatever the range.
 */

/** The first characters that make a spreadsheet read a cell as a formula (or hide a formula behind). */
const FORMULA_START = /^[=+\-@\t\r\n]/;

/**
 * A cell a spreadsheet shows as text: one that starts with `=`, `+`, `-`, `@`, a tab, a carriage return
 * or a line feed gets a leading apostrophe (OWASP's advice on CSV injection). Every cell of an export goes
 * through it; no column of the exports holds a negative number, so no amount is changed.
 */
export function neutraliseFormula(cell: string): string {
  return FORMULA_START.test(cell) ? `'${cell}` : cell;
}

/** A column: its header and its cell of a record (null: an empty cell). */
export interface CsvColumn<Item> {
  header: string;
  cell: (item: Item) => string | null;
}

/**
 * Pages of items in keyset order: `read` is given the key of the previous page's last item (undefined
 * for the first page) and the page size; a page shorter than that is the last one.
 */
export async function* keysetPages<Item>(
  read: (after: Cursor | undefined, limit: number) => Promise<Item[]>,
  keyOf: (item: Item) => Cursor,
  pageSize: number,
): AsyncGenerator<Item[]> {
  let after: Cursor | undefined;
  for (;;) {
    const page = await read(after, pageSize);
    if (page.length > 0) yield page;
    const last = page[page.length - 1];
    if (page.length < pageSize || last === undefined) return;
    after = keyOf(last);
  }
}

/**
 * The CSV of the items of `pages` (a header line, then one line per item, `\n` line ends, cells quoted
 * when they hold a comma, a quote or a line end, every cell through `neutraliseFormula`), as a stream to
 * hand to the reply. A failure while reading ends the stream with the error (the download is cut short;
 * `end` hears of it); a client that goes away stops the reading (the reply destroys the stream; `end`
 * hears `aborted`).
 */
export function csvStream<Item>(
  columns: ReadonlyArray<CsvColumn<Item>>,
  pages: AsyncIterable<readonly Item[]>,
  end: (outcome: 'done' | 'aborted' | Error) => void,
): Readable {
  async function* records(): AsyncGenerator<string[]> {
    for await (const page of pages) {
      for (const item of page) yield columns.map((column) => neutraliseFormula(column.cell(item) ?? ''));
    }
  }
  const stringifier = stringify({ header: true, columns: columns.map((column) => column.header) });
  pipeline(Readable.from(records()), stringifier, (error) => {
    if (!error) end('done');
    else end(error.code === 'ERR_STREAM_PREMATURE_CLOSE' ? 'aborted' : error);
  });
  return stringifier;
}
