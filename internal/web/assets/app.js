// agentty's live web view. Plain JS, no build step: it talks to the
// console API under /v1/ (the login cookie authenticates every request)
// and renders PTY sessions with xterm.js, pipe sessions as a log.
// Untrusted text (commands, output, search matches) only ever reaches the
// DOM through textContent or xterm.
'use strict';

(() => {
  const $ = (id) => document.getElementById(id);
  const enc = new TextEncoder();
  const CH_OUT = 1, CH_ERR = 2;
  // The terminal's font: the size it takes when the session's columns fit,
  // and the smallest it shrinks to before the box scrolls instead.
  const FONT = 14, FONT_MIN = 9;
  const LIST_KEY = 'agentty.list'; // localStorage: "collapsed" or absent

  let sessions = [];   // the last /v1/sessions answer
  let view = null;     // the open session's viewer, or null

  function status(msg) { $('status').textContent = msg; }

  async function api(path, opts) {
    const r = await fetch(path, Object.assign({ credentials: 'same-origin' }, opts));
    if (r.status === 401) { location.reload(); throw new Error('not logged in'); }
    if (!r.ok) {
      let msg = r.status + ' ' + r.statusText;
      try { msg = (await r.json()).error || msg; } catch (e) { /* not JSON */ }
      throw new Error(msg);
    }
    return r;
  }

  function age(s) {
    s = Math.max(0, Math.floor(s || 0));
    if (s < 60) return s + 's';
    if (s < 3600) return Math.floor(s / 60) + 'm ' + (s % 60) + 's';
    if (s < 86400) return Math.floor(s / 3600) + 'h ' + Math.floor(s % 3600 / 60) + 'm';
    return Math.floor(s / 86400) + 'd ' + Math.floor(s % 86400 / 3600) + 'h';
  }

  // stateText says how a session stands: "running", "exited 2",
  // "killed by SIGTERM (signal 15)".
  function stateText(s) {
    if (s.signal) return 'killed by ' + s.signal + (s.signal_number ? ' (signal ' + s.signal_number + ')' : '');
    if (s.state !== 'running' && s.exit_code != null) return s.state + ' ' + s.exit_code;
    return s.state || '';
  }

  // The session list collapses to give the terminal the width; the
  // choice is remembered in this browser.
  function listCollapsed() {
    try { return localStorage.getItem(LIST_KEY) === 'collapsed'; } catch (e) { return false; }
  }

  function showList(show) {
    try {
      if (show) localStorage.removeItem(LIST_KEY); else localStorage.setItem(LIST_KEY, 'collapsed');
    } catch (e) { /* storage off: the choice lasts this page */ }
    layoutSide(show);
  }

  function layoutSide(show) {
    $('list-pane').hidden = !show;
    $('side').hidden = !show && $('results').hidden;
    const b = $('list-toggle');
    b.textContent = show ? 'Hide sessions' : 'Sessions (' + sessions.length + ')';
    b.setAttribute('aria-expanded', String(show));
  }

  function cell(tr, text, cls) {
    const td = document.createElement('td');
    td.textContent = text == null ? '' : String(text);
    if (cls) td.className = cls;
    tr.appendChild(td);
    return td;
  }

  // The session list, refreshed every two seconds.
  async function refresh() {
    try {
      sessions = await (await api('/v1/sessions')).json() || [];
    } catch (e) { status('session list: ' + e.message); return; }
    status('');
    const body = $('sessions').tBodies[0];
    body.textContent = '';
    for (const s of sessions) {
      const tr = document.createElement('tr');
      tr.dataset.id = s.id;
      if (view && view.id === s.id) tr.className = 'open';
      cell(tr, s.id);
      cell(tr, stateText(s), 'state state-' + s.state);
      cell(tr, s.command, 'cmd').title = s.command || '';
      cell(tr, s.host || 'local', 'host');
      cell(tr, age(s.age_s), 'age');
      cell(tr, s.holder || '');
      tr.addEventListener('click', () => open(s.id));
      body.appendChild(tr);
    }
    $('empty').hidden = sessions.length > 0;
    layoutSide(!$('list-pane').hidden);
    if (view) view.info(sessions.find((s) => s.id === view.id));
  }

  function open(id) {
    if (view) view.close();
    const s = sessions.find((x) => x.id === id) || { id: id, mode: 'pty', live: true };
    location.hash = 's=' + encodeURIComponent(id);
    view = new Viewer(s);
    for (const tr of $('sessions').tBodies[0].rows) tr.classList.toggle('open', tr.dataset.id === id);
    // On a narrow screen the view sits below the list: bring it up.
    if ($('view').getBoundingClientRect().top > innerHeight / 2) $('view').scrollIntoView();
  }

  // Viewer shows one session: live over the WebSocket stream while the
  // server holds it, else its recorded transcript.
  class Viewer {
    constructor(s) {
      this.id = s.id;
      this.pipe = s.mode === 'pipe';
      this.holding = false;   // the person asked for the keyboard
      this.closed = false;
      this.retries = 0;       // reconnections in a row after falling behind
      this.received = 0;      // output bytes received, for the benchmark
      this.lastReceived = 0;  // when the last of them arrived (performance.now)
      this.hooks = [];        // called after output was written (benchmark)
      $('view').hidden = false;
      $('view-title').textContent = s.id + (s.command ? ': ' + s.command : '');
      $('view-note').textContent = '';
      $('term').hidden = this.pipe;
      $('log').hidden = !this.pipe;
      $('log').textContent = '';
      $('term').textContent = '';
      this.info(s);
      if (this.pipe) {
        this.decoders = { [CH_OUT]: new TextDecoder(), [CH_ERR]: new TextDecoder() };
      } else {
        this.term = new Terminal({ disableStdin: true, scrollback: 10000, fontSize: FONT, cursorBlink: false });
        this.term.open($('term'));
        this.term.onResize(() => this.fitFont());
        this.paneWidth = 0;
        this.watchPane = new ResizeObserver(() => {
          if ($('view').clientWidth !== this.paneWidth) this.fitFont();
        });
        this.watchPane.observe($('view'));
        this.term.onData((d) => this.key(enc.encode(d)));
        this.term.onBinary((d) => this.key(Uint8Array.from(d, (c) => c.charCodeAt(0))));
        $('term').onkeydown = () => {
          if (!this.holding && !$('take').hidden) $('view-note').textContent = 'read-only: press "Take the keyboard" to type into this session';
        };
      }
      this.buttons();
      if (s.live === false) this.transcript(); else this.connect();
    }

    info(s) {
      if (!s) return;
      this.live = s.live !== false;
      $('view-state').textContent = stateText(s) + (s.host ? ' on ' + s.host : '');
      this.showHolder(s.holder || '');
    }

    showHolder(h) {
      const el = $('view-holder');
      el.textContent = h ? 'keyboard: ' + h : 'keyboard: free';
      el.classList.toggle('typing', !!h);
    }

    buttons() {
      const canType = !this.pipe && this.live && !this.exited && !this.ended;
      $('take').hidden = !canType || this.holding;
      $('release').hidden = !canType || !this.holding;
      $('fit').hidden = !canType;
      $('replay').hidden = this.live !== false || this.pipe;
      $('kill').hidden = !this.live || this.exited || this.ended;
      if (this.term) this.term.options.disableStdin = !this.holding;
    }

    connect() {
      const proto = location.protocol === 'https:' ? 'wss:' : 'ws:';
      const url = proto + '//' + location.host + '/v1/sessions/' + encodeURIComponent(this.id) + '/stream?who=web';
      const ws = new WebSocket(url, 'agentty.v1');
      ws.binaryType = 'arraybuffer';
      this.ws = ws;
      ws.onmessage = (e) => {
        if (typeof e.data === 'string') this.event(JSON.parse(e.data));
        else this.output(new Uint8Array(e.data));
      };
      ws.onopen = () => {
        this.opened = performance.now();
        if (this.retries) $('view-note').textContent = '';
        if (this.holding) this.send({ type: 'take' }); // again, after a reconnect
      };
      ws.onclose = (e) => {
        if (this.closed || this.ws !== ws) return;
        // 1013: this page fell behind the output; the server says to
        // reconnect, which replays what it retains. A few times in a row at
        // most, so a flood it cannot keep up with ends in a message.
        if (e.code === 1013 && this.retries < 5) {
          this.retries = performance.now() - this.opened > 10000 ? 1 : this.retries + 1;
          $('view-note').textContent = 'reconnecting (' + e.reason + ')';
          setTimeout(() => { if (!this.closed) { this.clear(); this.connect(); } }, 250 * this.retries);
          return;
        }
        this.ended = true;
        this.holding = false;
        this.buttons();
        if (!this.exited) $('view-note').textContent = 'stream closed' + (e.reason ? ': ' + e.reason : '');
      };
    }

    // clear empties the view before the stream replays the output.
    clear() {
      if (this.term) this.term.reset();
      if (this.pipe) {
        $('log').textContent = '';
        this.decoders = { [CH_OUT]: new TextDecoder(), [CH_ERR]: new TextDecoder() };
      }
    }

    // output renders one binary stream message: a channel byte, then bytes.
    output(b) {
      const ch = b[0], data = b.subarray(1);
      this.received += data.length;
      this.lastReceived = performance.now();
      if (this.pipe) { this.log(ch, data); this.hooks.forEach((h) => h(data)); return; }
      this.term.write(data, () => this.hooks.forEach((h) => h(data)));
    }

    log(ch, data) {
      const pre = $('log');
      const atEnd = pre.scrollTop + pre.clientHeight >= pre.scrollHeight - 4;
      const text = (this.decoders[ch] || this.decoders[CH_OUT]).decode(data, { stream: true });
      const cls = ch === CH_ERR ? 'stderr' : 'stdout';
      let last = pre.lastElementChild;
      if (!last || last.className !== cls) {
        last = document.createElement('span');
        last.className = cls;
        pre.appendChild(last);
        while (pre.childElementCount > 2000) pre.firstElementChild.remove();
      }
      last.textContent += text;
      if (atEnd) pre.scrollTop = pre.scrollHeight;
    }

    event(ev) {
      switch (ev.type) {
        case 'resize':
          if (this.term && ev.rows > 0 && ev.cols > 0) this.term.resize(ev.cols, ev.rows);
          break;
        case 'lease':
          this.showHolder(ev.holder || '');
          refresh();
          // Someone else (a person attached in a terminal) took the keyboard.
          if (ev.holder && !/web/.test(ev.holder)) { this.holding = false; this.buttons(); }
          break;
        case 'exit':
          this.exited = true;
          $('view-note').textContent = $('view-state').textContent =
            stateText({ state: 'exited', exit_code: ev.exit_code, signal: ev.signal, signal_number: ev.signal_number });
          this.holding = false;
          this.buttons();
          break;
        case 'state':
          // The first message: the session's state, size and holder.
          // The list's entry knows the exit code or signal; the event not.
          if (ev.state) $('view-state').textContent = stateText(Object.assign({}, sessions.find((x) => x.id === this.id), { state: ev.state }));
          if (this.term && ev.rows > 0 && ev.cols > 0) this.term.resize(ev.cols, ev.rows);
          this.showHolder(ev.holder || '');
          break;
        case 'error':
          $('view-note').textContent = ev.error || ev.message || 'error';
          break;
      }
    }

    send(obj) { if (this.ws && this.ws.readyState === WebSocket.OPEN) this.ws.send(JSON.stringify(obj)); }

    key(bytes) {
      if (this.holding && this.ws && this.ws.readyState === WebSocket.OPEN) this.ws.send(bytes);
    }

    take() {
      this.holding = true;
      $('view-note').textContent = '';
      this.send({ type: 'take' });
      this.buttons();
      this.term.focus();
    }

    release() {
      this.holding = false;
      this.send({ type: 'release' });
      this.buttons();
    }

    // fitFont scales the terminal's font so that all the session's columns
    // fit the pane, from FONT down to FONT_MIN; a terminal still wider
    // scrolls in its box. The session's size is left alone.
    fitFont() {
      const t = this.term, screen = $('term').querySelector('.xterm-screen');
      if (!t || !screen || this.closed) return;
      this.paneWidth = $('view').clientWidth;
      const room = this.paneWidth - ($('term').offsetWidth - $('term').clientWidth) - 8; // less the box's border, scrollbar and padding
      const width = () => screen.getBoundingClientRect().width;
      let size = t.options.fontSize;
      // A cell's width grows with the font, not exactly in proportion
      // (rounding to device pixels): estimate, then step down to a fit.
      let want = Math.max(FONT_MIN, Math.min(FONT, Math.floor(size * room / width() * 4) / 4));
      if (want !== size) t.options.fontSize = size = want;
      while (width() > room && size > FONT_MIN) t.options.fontSize = size = Math.max(FONT_MIN, size - 0.25);
    }

    // fitSession resizes the session's terminal, the agent's too, to what
    // the pane holds at the full font: a person's explicit choice.
    fitSession() {
      const t = this.term, screen = $('term').querySelector('.xterm-screen');
      if (!t || !screen) return;
      const r = screen.getBoundingClientRect(), scale = FONT / t.options.fontSize;
      const cellW = r.width / t.cols * scale, cellH = r.height / t.rows * scale;
      const room = $('view').clientWidth - ($('term').offsetWidth - $('term').clientWidth) - 8;
      const cols = Math.floor(room / cellW);
      const rows = Math.max(5, Math.floor((innerHeight - $('term').getBoundingClientRect().top - 40) / cellH));
      if (rows > 0 && cols > 0) this.send({ type: 'resize', rows: rows, cols: cols });
    }

    // transcript shows a session the server no longer holds, from the
    // store: the recording into the terminal, or the text as a log.
    async transcript() {
      $('view-note').textContent = 'past session: its recorded transcript';
      try {
        if (this.pipe) {
          const text = await (await api(this.exportURL('text'))).text();
          this.log(CH_OUT, enc.encode(text));
          return;
        }
        this.cast = await this.loadCast();
        this.play(0);
      } catch (e) { $('view-note').textContent = 'transcript: ' + e.message; }
    }

    exportURL(format) { return '/v1/sessions/' + encodeURIComponent(this.id) + '/export?format=' + format; }

    // loadCast parses an asciicast v2 recording: a header line, then
    // [time, code, data] events.
    async loadCast() {
      const lines = (await (await api(this.exportURL('cast'))).text()).split('\n').filter((l) => l);
      const head = JSON.parse(lines.shift() || '{}');
      return { head: head, events: lines.map((l) => JSON.parse(l)) };
    }

    // play writes the recording; speed 0 writes it at once, else with its
    // timing (pauses capped at one second) speed times as fast.
    play(speed) {
      const t = this.term, c = this.cast;
      t.reset();
      if (c.head.width && c.head.height) t.resize(c.head.width, c.head.height);
      const apply = (e) => {
        if (e[1] === 'o') t.write(e[2]);
        else if (e[1] === 'r') { const [cols, rows] = String(e[2]).split('x').map(Number); if (cols && rows) t.resize(cols, rows); }
      };
      if (!speed) { c.events.forEach(apply); return; }
      let i = 0, prev = 0;
      const step = () => {
        if (this.closed || i >= c.events.length) return;
        const e = c.events[i++];
        apply(e);
        const next = c.events[i];
        const wait = next ? Math.min(1, next[0] - e[0]) / speed : 0;
        prev = e[0];
        setTimeout(step, wait * 1000);
      };
      step();
    }

    close() {
      this.closed = true;
      if (this.ws) this.ws.close();
      if (this.watchPane) this.watchPane.disconnect();
      if (this.term) this.term.dispose();
      $('view').hidden = true;
    }
  }

  async function search(ev) {
    ev.preventDefault();
    const q = $('q').value;
    if (!q) return;
    let url = '/v1/search?q=' + encodeURIComponent(q);
    if ($('q-here').checked && view) url += '&session_id=' + encodeURIComponent(view.id);
    const list = $('results-list');
    list.textContent = '';
    $('results-info').textContent = 'searching…';
    $('results').hidden = false;
    layoutSide(!$('list-pane').hidden);
    $('results').scrollIntoView({ block: 'nearest' });
    try {
      const r = await (await api(url)).json();
      const matches = Array.isArray(r) ? r : (r.matches || []);
      $('results-info').textContent = matches.length + ' match' + (matches.length === 1 ? '' : 'es') + (r.complete === false ? ' (search stopped early)' : '');
      for (const m of matches) {
        const li = document.createElement('li');
        const where = document.createElement('span');
        where.className = 'where';
        where.textContent = m.session_id + ':' + m.line;
        li.appendChild(where);
        li.appendChild(document.createTextNode(m.text));
        li.addEventListener('click', () => open(m.session_id));
        list.appendChild(li);
      }
    } catch (e) { $('results-info').textContent = 'search: ' + e.message; }
  }

  async function kill() {
    if (!view || !confirm('Kill session ' + view.id + ' and its processes?')) return;
    try { await api('/v1/sessions/' + encodeURIComponent(view.id) + '/kill', { method: 'POST' }); } catch (e) { status('kill: ' + e.message); }
    refresh();
  }

  $('take').addEventListener('click', () => view && view.take());
  $('release').addEventListener('click', () => view && view.release());
  $('fit').addEventListener('click', () => view && view.fitSession());
  $('replay').addEventListener('click', () => view && view.cast && view.play(4));
  $('kill').addEventListener('click', kill);
  $('search').addEventListener('submit', search);
  $('results-close').addEventListener('click', () => { $('results').hidden = true; layoutSide(!$('list-pane').hidden); });
  $('list-toggle').addEventListener('click', () => showList($('list-pane').hidden));
  layoutSide(!listCollapsed());

  // For tests and the benchmark: the open viewer, and a way to open one.
  window.agentty = { open: open, view: () => view, refresh: refresh };

  // #s=ID opens that session: at load, and when the address changes
  // (back, forward, a pasted link).
  const openHash = () => {
    const m = /^#s=(.+)$/.exec(location.hash);
    if (m && !(view && view.id === decodeURIComponent(m[1]))) open(decodeURIComponent(m[1]));
  };
  refresh().then(openHash);
  window.addEventListener('hashchange', openHash);
  setInterval(refresh, 2000);
})();
