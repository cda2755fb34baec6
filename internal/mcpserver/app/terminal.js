// The terminal app (ui://agentty/terminal): one session live, beside the
// tool call that created or read it. It talks to agentty only through the
// host: app_view follows the output, state and keyboard; app_input types
// as the person (taking the keyboard from agents, as attach and the web
// view do), sends a secret at a no-echo prompt, or hands the keyboard back.
(function () {
  "use strict";
  const $ = (id) => document.getElementById(id);
  const term = new Terminal({ convertEol: false, scrollback: 5000, fontSize: 13, cursorBlink: true });
  term.open($("term"));
  const app = new McpApps.App({ name: "agentty terminal", version: "1" }, {});
  let sid = "";   // the session shown
  let gen = 0;    // bumps when another session is shown; old loops stop
  let view = {};  // the last app_view
  let typing = Promise.resolve();

  function note(s) { $("note").textContent = s || ""; }
  function text(r) { return (r.content || []).map((c) => c.text || "").join(" "); }
  function decode(b64) {
    const s = atob(b64), b = new Uint8Array(s.length);
    for (let i = 0; i < s.length; i++) b[i] = s.charCodeAt(i);
    return b;
  }

  function show(v) {
    view = v;
    $("title").textContent = "session " + v.session_id + ": " + v.command;
    let st = v.state;
    if (v.exit_code !== undefined) st += " (exit " + v.exit_code + ")";
    if (v.signal) st += " (" + v.signal + ")";
    $("state").textContent = st;
    const mine = v.holder === "chat";
    $("holder").textContent = v.holder ? "keyboard: " + (mine ? "you" : "a person via " + v.holder) : "keyboard: the agent";
    $("holder").className = v.holder ? "person" : "";
    $("release").hidden = !mine;
    const secret = v.state === "awaiting_password";
    if (secret && $("secret").hidden) {
      $("secret").hidden = false;
      $("secret-field").focus();
    } else if (!secret) {
      $("secret").hidden = true;
    }
    term.options.convertEol = v.mode === "pipe"; // pipes write bare \n
    if (v.rows && v.cols && (term.rows !== v.rows || term.cols !== v.cols)) term.resize(v.cols, v.rows);
  }

  async function follow(id, my) {
    let offset = -1;
    while (my === gen) {
      let r;
      try {
        r = await app.callServerTool({ name: "app_view", arguments: { session_id: id, offset: offset, state: view.state || "", holder: view.holder || "", wait_ms: offset < 0 ? 0 : 10000 } });
      } catch (e) {
        note("lost the host: " + e.message);
        return;
      }
      if (my !== gen) return;
      if (r.isError) { note(text(r)); return; }
      const v = r.structuredContent;
      if (v.lost) term.write("\r\n[" + v.lost + " bytes evicted]\r\n");
      if (v.data) term.write(decode(v.data));
      offset = v.next;
      show(v);
      if (v.ended && v.next >= v.end) { note("the session has ended"); return; }
    }
  }

  function showSession(id) {
    if (!id || id === sid) return;
    sid = id;
    gen++;
    view = {};
    term.reset();
    note("");
    follow(id, gen);
  }

  function input(args) {
    if (!sid) return;
    const id = sid;
    typing = typing.then(async () => {
      try {
        const r = await app.callServerTool({ name: "app_input", arguments: Object.assign({ session_id: id }, args) });
        if (r.isError) note(text(r));
        else if (id === sid) show(Object.assign({}, view, { holder: r.structuredContent.holder || "" }));
      } catch (e) {
        note("lost the host: " + e.message);
      }
    });
  }

  // Only what the person types or pastes is input. xterm.js also answers
  // the program's terminal queries through onData (vim asks at start);
  // agentty's own emulator answers those, and sending them would take the
  // keyboard from the agent while nobody types.
  let keyed = false;
  const mark = () => { keyed = true; queueMicrotask(() => { keyed = false; }); };
  term.attachCustomKeyEventHandler(() => { mark(); return true; });
  for (const ev of ["paste", "input", "compositionend"]) term.textarea.addEventListener(ev, mark, true);
  term.onData((d) => { if (keyed && !view.ended) input({ data: d }); });
  $("release").addEventListener("click", () => input({ release: true }));
  // A button and Enter, not a form: a host's sandbox may forbid forms.
  function sendSecret() {
    const f = $("secret-field"), s = f.value;
    f.value = "";
    if (s) input({ secret: s });
  }
  $("secret-send").addEventListener("click", sendSecret);
  $("secret-field").addEventListener("keydown", (e) => { if (e.key === "Enter") { e.preventDefault(); sendSecret(); } });

  // The session comes from the call's result (start_process, open_shell,
  // run_command) or its arguments (read_screen).
  app.ontoolinput = (p) => { const a = p && p.arguments; if (a && a.session_id && !sid) showSession(a.session_id); };
  app.ontoolresult = (r) => {
    const sc = r && r.structuredContent;
    if (sc && sc.session_id) showSession(sc.session_id);
    else if (!sid) note("this call has no live session to show");
  };
  app.connect().catch((e) => note("could not reach the host: " + e.message));
})();
