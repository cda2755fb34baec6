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

// StartInput are start_process's arguments.
type StartInput struct {
	Command     string            `json:"command,omitempty" jsonschema:"shell command line, run by /bin/sh -c"`
	Argv        []string          `json:"argv,omitempty" jsonschema:"program and arguments, executed directly without a shell"`
	Mode        string            `json:"mode,omitempty" jsonschema:"pty (default: a real terminal) or pipe (plain pipes; stdout and stderr kept apart)"`
	MergeStderr bool              `json:"merge_stderr,omitempty" jsonschema:"pipe mode: send stderr into the stdout pipe, keeping their exact order (stream filtering then sees one stream)"`
	Cwd         string            `json:"cwd,omitempty" jsonschema:"working directory (default: the server's)"`
	Env         map[string]string `json:"env,omitempty" jsonschema:"environment variables to set or override"`
	Rows        int               `json:"rows,omitempty" jsonschema:"terminal rows 1-1000 (default 40)"`
	Cols        int               `json:"cols,omitempty" jsonschema:"terminal columns 1-1000 (default 120)"`
	Name        string            `json:"name,omitempty" jsonschema:"a name to find the session by"`
	SSHParams
	WaitParams
	ReadParams
}

// StartResult is start_process's result.
type StartResult struct {
	PID  int    `json:"pid"`
	Mode string `json:"mode"`
	Name string `json:"name,omitempty"`
	Host string `json:"host,omitempty" jsonschema:"user@host:port the session runs on (remote sessions)"`
	ReadResult
}

// Text implements texter.
func (r StartResult) Text() string {
	where := ""
	if r.Host != "" {
		where = " on " + r.Host
	}
	return fmt.Sprintf("started %s (pid %d, %s%s)\n", r.SessionID, r.PID, r.Mode, where) + r.ReadResult.Text()
}

func (t *tools) startProcess(ctx context.Context, req *mcp.CallToolRequest, in StartInput) (StartResult, error) {
	w, err := in.WaitParams.options(startWaits)
	if err != nil {
		return StartResult{}, err
	}
	ro, err := in.ReadParams.options()
	if err != nil {
		return StartResult{}, err
	}
	if err := t.gate.ReadLimit(&ro, in.MaxBytes); err != nil {
		return StartResult{}, err
	}
	if err := t.admitStart(ctx, req, in); err != nil {
		return StartResult{}, err
	}
	s, err := t.mgr.Start(session.StartOptions{Command: in.Command, Argv: in.Argv, Mode: record.Mode(in.Mode), MergeStderr: in.MergeStderr,
		Cwd: in.Cwd, Env: in.Env, Rows: in.Rows, Cols: in.Cols, Name: in.Name, Host: in.Host, AcceptNewHostKey: in.AcceptNewHostKey})
	if err != nil {
		if l := gate.LimitOf(err); l != "" {
			return StartResult{}, t.limitRefused(req, "start_process", "", in.Command+strings.Join(in.Argv, " "), l, agentError(err))
		}
		return StartResult{}, err
	}
	t.recordStart(req, s)
	w.SettleFromStart = true
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

// SendInput are send_input's arguments.
type SendInput struct {
	SessionID string   `json:"session_id" jsonschema:"session id (or name)"`
	Text      string   `json:"text,omitempty" jsonschema:"text to type, sent first"`
	Keys      []string `json:"keys,omitempty" jsonschema:"named keys sent after text, in order, e.g. [\"ctrl+c\"] or [\"down\",\"enter\"]"`
	Enter     bool     `json:"enter,omitempty" jsonschema:"press Enter after text and keys"`
	StdinEOF  bool     `json:"stdin_eof,omitempty" jsonschema:"end the input: close stdin (pipe) or send Ctrl+D (pty)"`
	ReaderID  int      `json:"reader_id,omitempty" jsonschema:"reader whose cursor the reply is read from (default 0)"`
	Echo      bool     `json:"echo,omitempty" jsonschema:"keep the terminal's echo of the typed line in the output (default false: an exact echo is left out)"`
	WaitParams
	ReadParams
}

// SendResult is send_input's result.
type SendResult struct {
	BytesSent int `json:"bytes_sent"`
	ReadResult
}

// Text implements texter.
func (r SendResult) Text() string { return r.ReadResult.Text() }

func (t *tools) sendInput(ctx context.Context, req *mcp.CallToolRequest, in SendInput) (SendResult, error) {
	s, err := t.mgr.Get(in.SessionID)
	if err != nil {
		return SendResult{}, err
	}
	w, err := in.WaitParams.options(sendWaits)
	if err != nil {
		return SendResult{}, err
	}
	ro, err := in.ReadParams.options()
	if err != nil {
		return SendResult{}, err
	}
	if err := t.gate.ReadLimit(&ro, in.MaxBytes); err != nil {
		return SendResult{}, err
	}
	if err := t.admitInput(ctx, req, s, in); err != nil {
		return SendResult{}, err
	}
	var state record.State // echo off (a password prompt) redacts the audited input
	if t.gate.Audited() {
		state, _ = s.State()
	}
	deadline := time.Now().Add(max(w.Timeout, 5*time.Second))
	n, err := s.Send(session.Input{Text: in.Text, Keys: in.Keys, Enter: in.Enter, EOF: in.StdinEOF, KeepEcho: in.Echo, From: clientName(req)}, deadline)
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
	r, err := s.Read(ctx, session.Cursor{Reader: in.ReaderID}, w, ro)
	stop()
	if err != nil {
		return SendResult{}, err
	}
	return SendResult{BytesSent: n, ReadResult: readResult(s, r)}, nil
}

// ReadInput are read_output's arguments.
type ReadInput struct {
	SessionID string `json:"session_id" jsonschema:"session id (or name)"`
	ReaderID  int    `json:"reader_id,omitempty" jsonschema:"reader cursor to read and advance (default 0); see register_reader"`
	Cursor    *int64 `json:"cursor,omitempty" jsonschema:"read from this absolute byte cursor instead (from an earlier result); the reader's cursor is not moved"`
	SinceLine *int64 `json:"since_line,omitempty" jsonschema:"read lines after this line number instead (0 = from the start); the reader's cursor is not moved"`
	WaitParams
	ReadParams
}

func (t *tools) readOutput(ctx context.Context, req *mcp.CallToolRequest, in ReadInput) (ReadResult, error) {
	s, err := t.mgr.Get(in.SessionID)
	if err != nil {
		return ReadResult{}, err
	}
	if in.Cursor != nil && in.SinceLine != nil {
		return ReadResult{}, fmt.Errorf("%w: give cursor or since_line, not both", session.ErrBadArgs)
	}
	w, err := in.WaitParams.options(readWaits)
	if err != nil {
		return ReadResult{}, err
	}
	ro, err := in.ReadParams.options()
	if err != nil {
		return ReadResult{}, err
	}
	if err := t.gate.ReadLimit(&ro, in.MaxBytes); err != nil {
		return ReadResult{}, err
	}
	stop := ReportProgress(ctx, req, s)
	r, err := s.Read(ctx, session.Cursor{Reader: in.ReaderID, At: in.Cursor, SinceLine: in.SinceLine}, w, ro)
	stop()
	if err != nil {
		return ReadResult{}, err
	}
	res := readResult(s, r)
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
