package askpass

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/agentty/agentty/internal/peers"
)

// Request is a question that reached the server: the prompt and who asks.
type Request struct {
	Prompt  string
	PID     int    // the askpass process
	UID     int    // its user
	Session string // the session it belongs to
}

// Handler answers a request with the secret, or an error the askpass
// process prints (the person declined, nobody can be asked).
type Handler func(ctx context.Context, r Request) ([]byte, error)

// Options configure a Server.
type Options struct {
	// Exe is the agentty executable the script runs (`Exe askpass`).
	Exe string
	// MarkerKey is the environment variable that marks a session's
	// processes; Session returns the session a marker value names, false
	// when it is not one of this server's. A peer must carry a marker of
	// this server (or descend from a process that does).
	MarkerKey string
	Session   func(marker string) (id string, ok bool)
	// Check refuses a peer process (a process of a session held in a
	// sandbox or under limits: its answer would act beyond them); nil
	// admits every peer of a session.
	Check  func(pid int) error
	Logger *slog.Logger
}

// Server listens on a unix socket in a directory of its own, next to the
// askpass script.
type Server struct {
	dir, sock, script string
	o                 Options
	h                 Handler
	ln                *net.UnixListener
	log               *slog.Logger

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup // the accept loop and one per connection
	once   sync.Once
}

// Listen creates the directory, script and socket and starts serving.
func Listen(o Options, h Handler) (*Server, error) {
	if !supported {
		return nil, ErrUnsupported
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	removeStale(os.TempDir(), o.Logger)
	dir, err := os.MkdirTemp("", dirPrefix)
	if err != nil {
		return nil, err
	}
	s := &Server{dir: dir, sock: filepath.Join(dir, "socket"), script: filepath.Join(dir, "askpass"), o: o, h: h, log: o.Logger}
	script := fmt.Sprintf("#!/bin/sh\nexec %s askpass -socket %s -- \"$@\"\n", shellQuote(o.Exe), shellQuote(s.sock))
	// Sessions may switch user (su, setpriv) before sudo asks: the
	// directory and script are reachable by all, and the socket's peers
	// are checked instead (peerAllowed).
	if err := os.WriteFile(s.script, []byte(script), 0o755); err != nil {
		_ = os.RemoveAll(dir)
		return nil, err
	}
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: s.sock, Net: "unix"})
	if err == nil {
		err = errors.Join(os.Chmod(dir, 0o755), os.Chmod(s.sock, 0o777))
	}
	if err != nil {
		if ln != nil {
			_ = ln.Close()
		}
		_ = os.RemoveAll(dir)
		return nil, err
	}
	s.ln = ln
	s.ctx, s.cancel = context.WithCancel(context.Background())
	s.wg.Add(1)
	go s.accept()
	return s, nil
}

// Env is what sessions get: SUDO_ASKPASS and the socket.
func (s *Server) Env() map[string]string {
	return map[string]string{"SUDO_ASKPASS": s.script, SocketEnv: s.sock}
}

// Close stops serving, ends the questions in flight and removes the
// directory. Idempotent.
func (s *Server) Close() error {
	s.once.Do(func() {
		s.cancel()
		_ = s.ln.Close()
		s.wg.Wait()
		_ = os.RemoveAll(s.dir)
	})
	return nil
}

func (s *Server) accept() {
	defer s.wg.Done()
	for {
		c, err := s.ln.AcceptUnix()
		if err != nil {
			return
		}
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			s.serve(c)
		}()
	}
}

func (s *Server) serve(c *net.UnixConn) {
	defer c.Close()
	ctx, cancel := context.WithCancel(s.ctx)
	defer cancel()
	stop := context.AfterFunc(ctx, func() { _ = c.Close() })
	defer stop()
	answer := func(r reply) { _ = json.NewEncoder(c).Encode(r) }
	// The request is read before the peer is judged, so a refused client
	// gets the reason rather than a broken pipe.
	sc := bufio.NewScanner(c)
	sc.Buffer(make([]byte, 0, 4096), maxLine)
	var q request
	if !sc.Scan() || json.Unmarshal(sc.Bytes(), &q) != nil {
		answer(reply{Error: "bad request"})
		return
	}
	req, err := s.peer(c)
	if err != nil {
		s.log.Warn("askpass: refused a connection", "err", err)
		answer(reply{Error: err.Error()})
		return
	}
	req.Prompt = q.Prompt
	// The person may take minutes; a closed connection (sudo gave up)
	// ends the question.
	readerDone := make(chan struct{})
	go func() {
		defer close(readerDone)
		var b [1]byte
		_, _ = c.Read(b[:])
		cancel()
	}()
	defer func() {
		_ = c.Close()
		<-readerDone
	}()
	secret, err := s.h(ctx, req)
	if err != nil {
		answer(reply{Error: err.Error()})
		return
	}
	answer(reply{Secret: string(secret)})
	for i := range secret {
		secret[i] = 0
	}
}

// peer identifies who connected and checks they may ask: the same user
// as the server (or any user when the server is root, whose sessions may
// switch user), and a process of one of this server's sessions.
func (s *Server) peer(c *net.UnixConn) (Request, error) {
	cred, err := peers.Of(c)
	if err != nil {
		return Request{}, err
	}
	me := os.Getuid()
	if cred.UID != me && me != 0 {
		return Request{}, fmt.Errorf("uid %d may not ask this server (uid %d)", cred.UID, me)
	}
	if s.o.Check != nil {
		if err := s.o.Check(cred.PID); err != nil {
			return Request{}, err
		}
	}
	id := s.sessionOf(cred.PID)
	if id == "" {
		return Request{}, errors.New("the asking process does not belong to a session of this agentty server")
	}
	return Request{PID: cred.PID, UID: cred.UID, Session: id}, nil
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
