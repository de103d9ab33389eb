// Label layout for the timeline: every label gets a place in one of the
// rows its lane offers, never over another label and never past the plot's
// edges. A label that finds no place is left out (its mark keeps its
// tooltip), rather than drawn over another.

let ctx2d = null;

/** textWidth measures text as the timeline draws it (11px system-ui). */
export function textWidth(text, weight = 400, size = 11) {
  if (!ctx2d) {
    const c = typeof document !== 'undefined' ? document.createElement('canvas') : null;
    ctx2d = c && c.getContext ? c.getContext('2d') : null;
  }
  if (!ctx2d) return text.length * size * 0.6;
  ctx2d.font = `${weight} ${size}px system-ui, sans-serif`;
  return ctx2d.measureText(text).width;
}

const GAP = 6;

/** Layout places labels in rows. Each row is a y baseline with the
 * horizontal spans already taken; boxes (rings) span rows. */
export class Layout {
  constructor(minX, maxX) {
    this.minX = minX;
    this.maxX = maxX;
    this.rows = new Map(); // y -> [[x0, x1], ...]
    this.boxes = []; // [[x0, y0, x1, y1], ...]
  }

  /** reserve marks a span of a row as taken (a lane's own drawing). */
  reserve(y, x0, x1) {
    if (!this.rows.has(y)) this.rows.set(y, []);
    this.rows.get(y).push([x0, x1]);
  }

  // taken: the spans a word on baseline y (10px up, 3 down) must avoid.
  taken(y) {
    return (this.rows.get(y) || []).concat(this.boxes.filter(b => b[1] < y + 3 && b[3] > y - 10).map(b => [b[0], b[2]]));
  }

  free(y, x0, x1) {
    return !this.taken(y).some(([a, b]) => x0 < b + GAP && x1 + GAP > a);
  }

  /** clear moves a word of width w starting at x on baseline y past
   * whatever it would be under, left to right. */
  clear(x, y, w = 0) {
    for (const [a, b] of this.taken(y).sort((p, q) => p[0] - q[0])) if (x + w > a - 2 && x < b + 2) x = b + 3;
    return x;
  }

  /** place finds a spot for a label of width w about x, in the first of
   * rows (y baselines) that has room: starting at x, ending at x, or as
   * near x as the edges allow; else, in any row, just past what is in
   * the way. It returns {x, y} or null. */
  place(x, w, rows) {
    const lo = this.minX, hi = this.maxX - w;
    if (hi < lo) return null;
    const near = () => [x + 4, x - w - 4, x - w / 2];
    const past = y => this.taken(y).flatMap(([a, b]) => [b + GAP, a - GAP - w]).filter(s => s < x + 40 && s + w > x - 40);
    for (const starts of [near, past]) {
      for (const y of rows) {
        for (let s of starts(y)) {
          s = Math.min(Math.max(s, lo), hi);
          if (this.free(y, s, s + w)) {
            this.reserve(y, s, s + w);
            return { x: s, y };
          }
        }
      }
    }
    return null;
  }
}
