/**
 * The non-ASCII characters SQLite's FTS5 unicode61 tokenizer (remove_diacritics 2) takes as token characters,
 * read from SQLite itself (the better-sqlite3 build Loupe ships): each code point U+0080..U+10FFFF written as
 * `a<c>a` into an FTS5 table is one token when <c> is a token character, two when it separates. FTS5's
 * tables are of an older Unicode than JavaScript's \p{L}, and treat unassigned code points as letters, so a
 * regex disagrees on ~819,000 code points; this list does not (test/storage/fts-tokens.test.ts checks it
 * against SQLite). Ranges, base 36: `start` or `start-length`.
 */
const RANGES = [
  '4q,4y-1,51,55-1,58-2,5c-m,60-u,6w-cp,jq-b,kg-4,ks,ku,lc-4,li-6,lr,lt,m3,mb-5,ml-1,mo-1,og-4,om-7,ov-4,p2,p4-31',
  ',s7-3u,wa-5r,128-14,13f-3,13k,154-16,16d-a,16t,17g-1,17k-16,19c-9,19q-1,19t-2q,1cl,1d1-1,1da-e,1dr,1e6,1e8,1ea',
  '-t,1fv-2i,1ip-1l,1kk-1,1kq-r,1lm,1lw,1m0,1m6-1,1mn-p,1ng-1,1nj-3o,1rz,1s4-1h,1tp,1u8,1ug-9,1uu-9,1v5-f,1vo-1j,',
  '1x9,1xh-1,1xl-1,1xq-8,1y0-9,1yc-d,1ys-5,1z0-4,1z8-1j,20t,20z-3,215-1,21a-2,21e-t,22a-2,22e-a,22s-1j,24d,24m,24',
  'q,24u-j,25g-b,25u-e,26c-1j,27x,285-1,289-1,28e-7,28o-9,290-b,29d-g,29v-1m,2bn-2,2bt,2by-8,2c8-q,2d7-5,2dg-1l,2',
  'f9,2fd,2fi-6,2fr-a,2g4-q,2gw-1,2h0-1j,2il,2it,2ix,2j2-6,2jb-a,2jo-t,2kk-1l,2md,2mh,2mm-8,2mw-9,2n8-k,2nu-7,2o4',
  '-1x,2q3-3,2qd,2qf,2qo-h,2r9-1n,2sy-1,2t7-3,2tc-6,2ts-9,2u4-2c,2wi-1,2wq,2wt-a,2xa-1e,2zk-j,30g-1c,32g-4,32w,33',
  'x,34d,34r-27,37j-a,380-5,38a-3,38h,38l-1,38u-2,391-c,39q,39s-9,3a8-2i,3cs-gw,3u1-12,3ve-2t,3y9-h7,4fj-g,4g1-p,',
  '4gt-25,4j2-z,4k5-s,4l3-q,4lw-t,4ms-1r,4pj,4po,4pq-x,4r3-49,4ve-39,4z0-3,4zg-3,4zl-2,4zq-2x,535-6,53e-j,54w-m,5',
  '5o-1,55s-1g,57j,58d-1,58g-v,59j,59q-29,5c5-1a,5dx-k,5fh-2,5fn-t,5gu-1j,5is-7,5j4-z,5ko-2,5kw-1p,5mo-1r,5oo-7,5',
  'pl-3,5pq-3,5px-5m,5wn-k,5xc-cc,69q,69u-a,6a8-c,6ao-c,6b4-c,6bj,6ed-4,6eo-9,6f3-a,6fj-g,6gq-l,6i9-e,6iq,6iv,6iy',
  '-9,6j9,6jd-4,6jo,6jq,6js,6ju-3,6jz-a,6kc-3,6kl-4,6ku,6kw-1r,73o-b,753-o,763-28,7ai-l,7pc,7sm-t,8jx-2,8ka-ay,8v',
  'f-3,8vm-6,8vx,8w0-33,8z5-d,8zk-2n,94f,94s-1v,97e,99w-b,9g6-p,9h8-3,9hh-2,9i9-8,9ip-4,9iw-4,9j4-2g,9lp-2,9lt-2h',
  ',9oc-43,9si-3,9sw-v,9us-r,9wf-a,9xk-7,9xt-e,9z4-9,a0h-e,a2n,a9s-533,feo-h3j,wjr-1i,wlc-7g,wsw-2m,wvz-v,www-27,',
  'wzc-7,x07-8,x0i-2u,x3f-3a,x6r-2,x6v-3,x70-m,x7w-9,x8a-1l,xa0-7,xaa-1d,xc5-8,xcg-f,xde-5,xdn-16,xf4-m,xg4-a,xgg',
  '-v,xhg-1a,xji-f,xk0-20,xmf-b,xms-7,xn2-d,xnk-m,xoa,xoc-1f,xpt,xpx-1,xq1-4,xq8,xqa-r,xr4-a,xrm-2,xrr-6j,xym-8pd',
  ',188w-5ct,1dlr-9,1dm2-3r,1dqa-aj,1e0w-57,1e66-1,1e6y-5,1e7b-8,1e8j,1e93,1e98-42,1edc,1eds-9,1ee9-p,1ef5-p,1eg6',
  '-3d,1ejr,1ejz-9,1ekg-73,1ern-1f,1etc-1k,1eve-5,1evw-1f,1eym-bk,1fa8-1b,1fbl-w5,1g7s-5i,1gdc-u,1ge8-5c,1gjo,1gj',
  'r-4,1gk0-13,1gl7-3,1glc-f,1gm1-11,1gn4-54,1gsg-xr,1hqb-1g,1hse-1d,1htv-18,1hvm-1p,1hxf-z,1hyt-a,1hz8-1n,1i0z-1',
  'b,1i2p-3,1i2x-yp,1j20-2pj,1lro-esc,20lb-f,20lv-j1o,2jue-9,2jvr-1,2k0u-x,2k3q-55,2kbb-o9,2kzm-o,2l0c-u,2l18-o,2',
  'l1y-u,2l2u-o,2l3k-u,2l4g-o,2l56-u,2l62-o,2l6s-4kr,2prm-7h,2q0c-3,2q38-b,2q3z-1,2q4f-1,2q4w,2q5c-1b,2q7j,2q98-3',
  ',2qaj-22,2qdf-c,2qez-4,2qfd-6,2qfm-4t,2qld-e,2qly,2qnx-2,2qok-b,2qpx,2qq3-k,2qr5-e,2qtb,2qtd,2qyg,2qyl-2,2r0e-',
  '1,2r0k-b,2r1k-42,2r7l-3,2r80-1b,2rba-1l,2rg4-gwi4,jnya-t,jo1s-3j,joc0-47bj',
].join('');

/** [start, end] pairs, inclusive, ascending. */
export const FTS5_TOKEN_RANGES: Uint32Array = (() => {
  const parts = RANGES.split(',');
  const out = new Uint32Array(parts.length * 2);
  parts.forEach((p, i) => {
    const [start, extra] = p.split('-');
    const a = parseInt(start!, 36);
    out[i * 2] = a;
    out[i * 2 + 1] = a + (extra ? parseInt(extra, 36) : 0);
  });
  return out;
})();

/** Whether FTS5 takes a non-ASCII code point as part of a token (binary search over the ranges). */
export function isFts5TokenChar(cp: number): boolean {
  let lo = 0;
  let hi = FTS5_TOKEN_RANGES.length / 2 - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (cp < FTS5_TOKEN_RANGES[mid * 2]!) hi = mid - 1;
    else if (cp > FTS5_TOKEN_RANGES[mid * 2 + 1]!) lo = mid + 1;
    else return true;
  }
  return false;
}
