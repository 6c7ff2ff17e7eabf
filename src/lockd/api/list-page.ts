// Lease.List paging (proto/lockd.proto LeaseListRequest): the page size's default and maximum, and
// the page token — the last lease id of the previous page, so a page resumes after it whatever was
// granted or ended in between. Opaque to clients; anything but a token this codec made is refused.
import type { Problem } from '../state-machine/index.js';

export const DEFAULT_LIST_PAGE_SIZE = 1000;
export const MAX_LIST_PAGE_SIZE = 10_000;

const TOKEN = /^l1\.([1-9][0-9]{0,15})$/;

export function encodePageToken(lastId: number): string {
  return `l1.${lastId}`;
}

/** The lease id a page resumes after: 0 for the first page ("" token). */
export function decodePageToken(token: string): number | undefined {
  if (token === '') return 0;
  const m = TOKEN.exec(token);
  const id = m ? Number(m[1]) : NaN;
  return Number.isSafeInteger(id) ? id : undefined;
}

export function validateListPage(req: { readonly pageToken: string }): Problem | undefined {
  if (decodePageToken(req.pageToken) !== undefined) return undefined;
  const shown = req.pageToken.length > 40 ? `${req.pageToken.slice(0, 40)}…` : req.pageToken;
  return {
    error: 'INVALID_ARGUMENT',
    message: `page_token ${JSON.stringify(shown)} is not a token this server returned: pass "" for the first page, then each response's next_page_token as it was`,
  };
}

/** 0 → the default; above the maximum → the maximum. */
export function pageSize(requested: number): number {
  return requested === 0 ? DEFAULT_LIST_PAGE_SIZE : Math.min(requested, MAX_LIST_PAGE_SIZE);
}
