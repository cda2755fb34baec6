package mcpserver

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentty/agentty/internal/gate"
	"github.com/agentty/agentty/internal/record"
	"github.com/agentty/agentty/internal/session"
)

// Text implements texter.
func (r StartResult) Text() string {
	where := ""
	if r.Host != "" {
		where = " on " + r.Host
	}
	return fmt.Sprintf("started %s (pid %d, %s%s)\n", r.SessionID, r.PID, r.Mode, where) + r.ReadResult.Text()
}

func (t *tools) startProcess(ctx context.Context, req *mcp.CallToolRequest, in StartInput) (StartResult, error) {
	w, ro, err := t.waitRead(in.WaitParams, startWaits, in.ReadParams)
	if err != nil {
		return StartResult{}, err
	}
	if err := sandboxAsks(in.Sandbox); err != nil {
		return StartResult{}, err
	}
	if err := t.admitStart(ctx, req, in); err != nil {
		return StartResult{}, err
	}
	s, err := t.mgr.Start(session.StartOptions{Command: in.Command, Argv: in.Argv, Mode: record.Mode(in.Mode), MergeStderr: in.MergeStderr,
		Cwd: in.Cwd, Env: in.Env, Rows: in.Rows, Cols: in.Cols, Name: in.Name, Host: in.Host, AcceptNewHostKey: in.AcceptNewHostKey,
		Contain: profileOf(in.Limits, in.Sandbox), Base: clientEnv(ctx, in.Host)})
	if err != nil {
		if l := gate.LimitOf(err); l != "" {
			return StartResult{}, t.limitRefused(req, "start_process", "", in.Command+strings.Join(in.Argv, " "), l, agentError(err))
		}
		return StartResult{}, err
	}
	t.recordStart(req, s)
	w.SettleFromStart = true
	if w.Listen != nil {
		w.Listen.FromStart = true
	}
	stop := ReportProgress(ctx, req, s)
	r, err := s.Read(ctx, session.Cursor{}, w, ro)
	stop()
	if err != nil {
		return StartResult{}, err
	}
	res := StartResult{PID: s.PID(), Mode: string(s.Mode), Name: s.Name, Host: s.Host(), ReadResult: readResult(s, r)}
	if st := s.Status(); st != nil && in.Command != "" && (st.Code == 127 || st.Code == 126) {
		return res, fmt.Errorf("%w: %s exited with code %d right away (126: not executable, 127: not found); output: %s (session %s is kept for read_output)",
			session.ErrCommandNotFound, in.Command, st.Code, clip(strings.TrimSpace(res.Output), 2000), s.ID)
	}
	return res, nil
}

// Text implements texter.
func (r SendResult) Text() string {
	switch {
	case r.SecretURL != "":
		return "secret: url_given " + r.SecretURL + "\n" + r.ReadResult.Text()
	case r.Secret != "":
		return "secret: " + r.Secret + "\n" + r.ReadResult.Text()
	}
	return r.ReadResult.Text()
}

func (t *tools) sendInput(ctx context.Context, req *mcp.CallToolRequest, in SendInput) (SendResult, error) {
	s, err := t.mgr.Get(in.SessionID)
	if err != nil {
		return SendResult{}, err
	}
	if in.Secret != "" {
		return t.sendSecret(ctx, req, s, in)
	}
	w, ro, err := t.waitRead(in.WaitParams, sendWaits, in.ReadParams)
	if err != nil {
		return SendResult{}, err
	}
	if err := t.admitInput(ctx, req, s, in); err != nil {
		return SendResult{}, err
	}
	var state record.State // echo off (a password prompt) redacts the audited input
	if t.gate.Audited() {
		state, _ = s.State()
	}
	if w.Listen != nil {
		// The baseline comes before the input, which may open the socket.
		l := *w.Listen
		if err := s.PrepareListen(&l); err != nil {
			return SendResult{}, err
		}
		w.Listen = &l
	}
	deadline := time.Now().Add(max(w.Timeout, 5*time.Second))
	si := session.Input{Text: in.Text, Keys: in.Keys, Enter: in.Enter, EOF: in.StdinEOF, KeepEcho: in.Echo, From: clientName(req)}
	var n int
	if in.KeysApart {
		n, err = s.SendApart(ctx, si, deadline)
	} else {
		n, err = s.Send(si, deadline)
	}
	if n > 0 || err == nil {
		t.recordInput(req, s, in, state)
	}
	if err != nil {
		if l := gate.LimitOf(err); l != "" {
			return SendResult{}, t.limitRefused(req, "send_input", s.ID, "", l, err)
		}
		return SendResult{}, err
	}
	mark := s.LastInput()
	w.Input = &mark
	stop := ReportProgress(ctx, req, s)
	wctx, unwake := t.askWake(ctx, s.ID, w)
	r, err := s.Read(wctx, session.Cursor{Reader: in.ReaderID}, w, ro)
	asked(wctx, &r)
	unwake()
	stop()
	if err != nil {
		return SendResult{}, err
	}
	res := SendResult{BytesSent: n, ReadResult: readResult(s, r)}
	t.askpassHint(s, &res.ReadResult)
	return res, nil
}

func (t *tools) readOutput(ctx context.Context, req *mcp.CallToolRequest, in ReadInput) (ReadResult, error) {
	s, err := t.mgr.Get(in.SessionID)
	if err != nil {
		return ReadResult{}, err
	}
	if in.Cursor != nil && in.SinceLine != nil {
		return ReadResult{}, fmt.Errorf("%w: give cursor or since_line, not both", session.ErrBadArgs)
	}
	w, ro, err := t.waitRead(in.WaitParams, readWaits, in.ReadParams)
	if err != nil {
		return ReadResult{}, err
	}
	stop := ReportProgress(ctx, req, s)
	wctx, unwake := t.askWake(ctx, s.ID, w)
	r, err := s.Read(wctx, session.Cursor{Reader: in.ReaderID, At: in.Cursor, SinceLine: in.SinceLine}, w, ro)
	asked(wctx, &r)
	unwake()
	stop()
	if err != nil {
		return ReadResult{}, err
	}
	res := readResult(s, r)
	t.askpassHint(s, &res)
	if s.Mode == record.ModePipe && ro.Streams != 0 && in.Stream != "" && in.Stream != "both" {
		res.Hint = strings.TrimSpace(res.Hint + " (stream-filtered reads: line numbers count both streams)")
	}
	return res, nil
}

// clip shortens s to at most n bytes for an error message.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "") + "…"
}
