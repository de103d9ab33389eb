// Session speaks the /ws/run protocol: it sends start, inject, pause,
// resume, step, speed and stop, and hands event, state, summary and error
// messages to the page.

export class Session {
  constructor(handlers) {
    this.h = handlers;
    this.ws = null;
    this.ready = null;
  }

  /** open connects (or reuses the connection) and resolves when it is open. */
  open() {
    if (this.ws && this.ws.readyState === WebSocket.OPEN) return Promise.resolve();
    if (this.ready) return this.ready;
    const url = (location.protocol === 'https:' ? 'wss://' : 'ws://') + location.host + '/ws/run';
    this.ready = new Promise((resolve, reject) => {
      const ws = new WebSocket(url);
      ws.onopen = () => { this.ws = ws; this.ready = null; resolve(); };
      ws.onmessage = e => {
        let m;
        try { m = JSON.parse(e.data); } catch { return; }
        const fn = this.h[m.type];
        if (fn) fn(m);
      };
      ws.onclose = e => {
        const was = this.ws === ws;
        this.ws = null;
        if (this.ready) { this.ready = null; reject(new Error('could not connect to the server')); }
        if (was) this.h.closed?.(e);
      };
    });
    return this.ready;
  }

  /** send sends msg, or, while the socket opens, once it is open: after
   * the start that opened it, so that a pause or a speed chosen in that
   * moment reaches the run. With no socket at all it is dropped. */
  send(msg) {
    if (this.ws && this.ws.readyState === WebSocket.OPEN) {
      this.ws.send(JSON.stringify(msg));
    } else if (this.ready) {
      this.ready.then(() => this.send(msg), () => {});
    }
  }
}
