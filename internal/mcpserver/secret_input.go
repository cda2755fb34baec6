package mcpserver

// Secrets the person types: a one-time loopback page (internal/secret)
// that the client opens for the person through URL-mode elicitation. The
// secret goes from the page to the terminal; results, the audit log, the
// transcript and logs see only that it was answered (and its size where
// typed input is recorded).

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentty/agentty/internal/gate"
	"github.com/agentty/agentty/internal/record"
	"github.com/agentty/agentty/internal/secret"
	"github.com/agentty/agentty/internal/session"
)

// askUser is send_input's secret value that asks the person.
const askUser = "ask_user"

// Outcomes of asking for a secret, as results name them.
const (
	secretAnswered = "answered"
	secretDeclined = "declined"
	secretTimedOut = "timed_out"
	secretURLGiven = "url_given"
)

// errNoPages: the server runs without secret pages.
var errNoPages = fmt.Errorf("%w: this agentty server has no secret pages (internal error: Options.Secrets unset)", session.ErrBadArgs)

// openPage makes the one-time page for s's prompt.
func (t *tools) openPage(s *session.Session) (*secret.Page, error) {
	if t.pages == nil {
		return nil, errNoPages
	}
	return t.pages.Open(secret.Info{Session: s.ID, Command: s.Command, Prompt: s.LastLine()})
}

// pageOf returns the open page with id, or nil.
func (t *tools) pageOf(id string) *secret.Page {
	if t.pages == nil || id == "" {
		return nil
	}
	return t.pages.Lookup(id)
}

// askSecret asks the person to type a secret on pg and writes it to s
// with Enter. It returns the outcome, or an error that ends the call
// (*needInput for a multi-round-trip retry, errNoURL, a cannot-ask error).
//
// With deliver false the page is an askpass question: its waiter takes the
// answer, and askSecret only reports the outcome.
func (t *tools) askSecret(ctx context.Context, req *mcp.CallToolRequest, s *session.Session, pg *secret.Page, state string, retried, deliver bool) (string, error) {
	msg := fmt.Sprintf("%s (session %s) asks for a secret:\n\n%s\n\nType it on the page agentty opens; the agent does not see it.", s.Command, s.ID, pg.Prompt)
	params := &mcp.ElicitParams{Mode: "url", Message: msg, URL: pg.URL, ElicitationID: pg.ID}
	if canElicit(req) && !canElicitURL(req) {
		// A form-only client shows the person the link; the model still
		// sees neither the link's answer nor the secret.
		params = &mcp.ElicitParams{Message: msg + "\n\nOpen " + pg.URL + " , type the secret there, then accept here.",
			RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{}}}
	}
	er, err := ask(ctx, req, question{key: "agentty_secret_" + pg.ID[:12], params: params, state: state, retried: retried})
	if err != nil {
		// A retry comes back to this page; a client that cannot show it
		// leaves it to the caller (the agent may pass the link on).
		if _, retry := errors.AsType[*needInput](err); !retry && !cannotShow(err) {
			pg.Withdraw()
		}
		return "", err
	}
	if er.Action != "accept" {
		pg.Withdraw()
		return secretDeclined, nil
	}
	if !deliver {
		select {
		case <-pg.Done():
		case <-ctx.Done():
			return "", ctx.Err()
		}
		switch err := pg.Outcome(); {
		case err == nil:
			return secretAnswered, nil
		case errors.Is(err, secret.ErrDeclined):
			return secretDeclined, nil
		}
		return secretTimedOut, nil
	}
	return t.typeSecret(ctx, req, s, pg)
}

// typeSecret waits for the person's answer on pg and types it into s.
func (t *tools) typeSecret(ctx context.Context, req *mcp.CallToolRequest, s *session.Session, pg *secret.Page) (string, error) {
	sec, err := pg.Wait(ctx)
	switch {
	case errors.Is(err, secret.ErrDeclined):
		return secretDeclined, nil
	case errors.Is(err, secret.ErrExpired), errors.Is(err, secret.ErrClosed):
		return secretTimedOut, nil
	case err != nil:
		pg.Withdraw()
		return "", err
	}
	defer secret.Clear(sec)
	if req != nil {
		notifyDone(ctx, req, pg.ID)
	}
	text := string(sec)
	if _, err := s.Send(session.Input{Text: text, Enter: true, Secret: true, From: record.FromPerson}, time.Now().Add(10*time.Second)); err != nil {
		return "", err
	}
	t.gate.Typed(clientOf(req), s, gate.Input{Text: text, Enter: true}, record.StateAwaitingPassword)
	return secretAnswered, nil
}

// sendSecret is send_input with secret=ask_user: it asks the person for
// the secret the session's prompt wants, types it, and reads the reply
// like send_input.
func (t *tools) sendSecret(ctx context.Context, req *mcp.CallToolRequest, s *session.Session, in SendInput) (SendResult, error) {
	if in.Secret != askUser {
		return SendResult{}, fmt.Errorf("%w: secret must be %q", session.ErrBadArgs, askUser)
	}
	if in.Text != "" || len(in.Keys) > 0 || in.StdinEOF {
		return SendResult{}, fmt.Errorf("%w: secret=ask_user types what the person enters, then Enter; give no text, keys or stdin_eof with it", session.ErrBadArgs)
	}
	w, ro, err := t.waitRead(in.WaitParams, sendWaits, in.ReadParams)
	if err != nil {
		return SendResult{}, err
	}
	var pg *secret.Page
	retried, deliver := false, true
	if p, ok := t.openState(req.Params.RequestState); ok && len(p) == 4 && p[0] == "secret" && p[1] == s.ID {
		retried, deliver = true, p[3] == "tty"
		if pg = t.pageOf(p[2]); pg == nil {
			return unsent(ctx, s, in, ro, SendResult{Secret: secretTimedOut},
				"the secret page expired before the person answered; call again to ask again")
		}
	} else if ap, _ := t.pendingAsk(s.ID); ap != nil {
		pg, deliver = ap, false // sudo -A asks through agentty askpass
	} else {
		if state, _ := s.State(); state != record.StateAwaitingPassword {
			return SendResult{}, fmt.Errorf("%w: session %s is %s, not at a password prompt (awaiting_password); secret=ask_user answers a prompt that reads with echo off", session.ErrBadArgs, s.ID, state)
		}
		if pg, err = t.openPage(s); err != nil {
			return SendResult{}, err
		}
	}
	to := "tty"
	if !deliver {
		to = "askpass"
	}
	outcome, err := t.askSecret(ctx, req, s, pg, t.sealState(time.Now(), "secret", s.ID, pg.ID, to), retried, deliver)
	if cannotShow(err) {
		// The client cannot open the page: the agent passes the link on.
		// An askpass question's waiter takes the answer itself.
		if deliver {
			go t.typeLater(s, pg)
		}
		return unsent(ctx, s, in, ro, SendResult{Secret: secretURLGiven, SecretURL: pg.URL},
			"this client cannot open a page for the person: give them this URL; what they type there goes to the terminal (you will not see it), then read_output shows the reply")
	}
	if err != nil {
		return SendResult{}, err
	}
	if outcome == secretAnswered {
		mark := s.LastInput()
		w.Input = &mark
	} else {
		w = session.WaitOptions{}
	}
	stop := ReportProgress(ctx, req, s)
	r, err := s.Read(ctx, session.Cursor{Reader: in.ReaderID}, w, ro)
	stop()
	if err != nil {
		return SendResult{}, err
	}
	res := SendResult{Secret: outcome, ReadResult: readResult(s, r)}
	if outcome != secretAnswered {
		res.Hint = "the person " + map[string]string{secretDeclined: "declined", secretTimedOut: "did not answer in time"}[outcome] +
			"; nothing was typed. Ask them what to do, or stop the program"
	}
	return res, nil
}

// unsent completes res, a reply for which nothing was typed, as a read
// that does not wait: the reader's true cursor, line, state and reason
// (no_wait), and any output it had not read yet.
func unsent(ctx context.Context, s *session.Session, in SendInput, ro session.ReadOptions, res SendResult, hint string) (SendResult, error) {
	r, err := s.Read(ctx, session.Cursor{Reader: in.ReaderID}, session.WaitOptions{}, ro)
	if err != nil {
		return SendResult{}, err
	}
	res.ReadResult = readResult(s, r)
	res.Hint = hint
	return res, nil
}

// cannotShow reports whether err says the client cannot show the person a
// page (no elicitation, or no URL mode).
func cannotShow(err error) bool {
	_, cannot := errors.AsType[*gate.CannotAskError](err)
	return cannot || errors.Is(err, errNoURL)
}

// typeLater types the answer of a page handed to the agent as a URL when
// the person posts it. It ends when the page is settled: answered,
// declined, expired (secret.DefaultTTL) or withdrawn by Pages.Close.
func (t *tools) typeLater(s *session.Session, pg *secret.Page) {
	if _, err := t.typeSecret(context.Background(), nil, s, pg); err != nil {
		t.log.Debug("secret page: typing the answer failed", "session", s.ID, "err", err)
	}
}

// arm kills an interactive run whose multi-round-trip client does not
// come back with an answer while the question is answerable.
func (t *tools) arm(s *session.Session) {
	t.runsMu.Lock()
	defer t.runsMu.Unlock()
	if old := t.runs[s.ID]; old != nil {
		old.Stop()
	}
	t.runs[s.ID] = time.AfterFunc(confirmTimeout, func() {
		t.runsMu.Lock()
		delete(t.runs, s.ID)
		t.runsMu.Unlock()
		t.kill(context.Background(), s)
	})
}

// disarm stops s's timer; false when it already fired (the run was killed).
func (t *tools) disarm(id string) bool {
	t.runsMu.Lock()
	defer t.runsMu.Unlock()
	tm := t.runs[id]
	delete(t.runs, id)
	return tm != nil && tm.Stop()
}
