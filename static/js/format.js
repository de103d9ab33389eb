// Durations and numbers written the way the scenario contract writes them.

const UNITS = { h: 3600000, m: 60000, s: 1000, ms: 1, us: 0.001, 'µs': 0.001, ns: 0.000001 };

/** parseDuration reads a Go duration string ("1m30s", "400ms") into ms, or NaN. */
export function parseDuration(text) {
  if (typeof text !== 'string') return NaN;
  let s = text.trim(), sign = 1;
  if (s.startsWith('-')) { sign = -1; s = s.slice(1); } else if (s.startsWith('+')) s = s.slice(1);
  if (s === '0') return 0;
  const re = /(\d+(?:\.\d*)?|\.\d+)(ms|us|µs|ns|h|m|s)/y;
  let total = 0, pos = 0, m;
  while (pos < s.length) {
    re.lastIndex = pos;
    if (!(m = re.exec(s))) return NaN;
    total += parseFloat(m[1]) * UNITS[m[2]];
    pos = re.lastIndex;
  }
  return pos === 0 ? NaN : sign * Math.round(total);
}

/** formatMS writes milliseconds as Go does ("1m30s", "400ms", "0s"). */
export function formatMS(ms) {
  if (ms === 0) return '0s';
  const neg = ms < 0; ms = Math.abs(Math.round(ms));
  let out;
  if (ms < 1000) out = ms + 'ms';
  else {
    const h = Math.floor(ms / 3600000), m = Math.floor(ms / 60000) % 60;
    const sec = (ms % 60000) / 1000;
    out = (h ? h + 'h' : '') + (h || m ? m + 'm' : '') + String(+sec.toFixed(3)) + 's';
  }
  return (neg ? '-' : '') + out;
}

/** seconds turns ms into a short number of seconds for an input (13000 -> "13"). */
export function seconds(ms) { return String(+(ms / 1000).toFixed(3)); }

/** num writes an integer with thousands separators (42,000). */
export function num(v) { return Number(v).toLocaleString('en-US'); }

/** esc makes text safe inside HTML or SVG markup. */
export function esc(s) {
  return String(s).replace(/[&<>"']/g, c => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]);
}

/** clone deep-copies plain JSON data. */
export function clone(v) { return v === undefined ? v : JSON.parse(JSON.stringify(v)); }
