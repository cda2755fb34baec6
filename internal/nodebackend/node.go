package nodebackend

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"sync"
	"syscall"
	"time"

	"github.com/agentty/agentty/internal/backend"
	"github.com/agentty/agentty/internal/outlog"
	"github.com/agentty/agentty/internal/proctree"
)

// endGrace is how long the node's programs get between SIGTERM and SIGKILL
// when the local agentty is gone.
const endGrace = 2 * time.Second

// node is the agentty inside the target: it starts programs on request and
// answers for them. Serve owns it.
type node struct {
	out     *outq
	spawner *proctree.Spawner
	cwd     string // where programs start when the request names no directory

	mu     sync.Mutex
	procs  map[uint32]*nodeProc // guarded by mu
	roots  map[int]bool         // guarded by mu; root pids, which the reaper leaves alone
	nextID uint32               // guarded by mu
	wg     sync.WaitGroup       // request and per-process goroutines
}

// nodeProc is one program the node started. Its input requests run in
// order on its worker (reqs); the others run at once, each in its own
// goroutine, so none waits behind a write the program does not take.
type nodeProc struct {
	id   uint32
	proc backend.Process
	reqs chan request // closed when the process is closed
}

// Serve runs a node on r and w (the stdin and stdout of `agentty node`)
// until r ends, then ends every process tree it started and returns.
// version names this agentty in the hello.
func Serve(r io.Reader, w io.Writer, version string) error {
	if err := proctree.SetSubreaper(); err != nil {
		fmt.Fprintf(os.Stderr, "agentty node: cannot become child subreaper (%v); orphans go to init\n", err)
	}
	cwd, _ := os.Getwd()
	n := &node{out: newOutq(), spawner: proctree.NewSpawner(), cwd: cwd,
		procs: map[uint32]*nodeProc{}, roots: map[int]bool{}}
	defer n.spawner.Close()
	go n.out.run(w)
	ctx, stopReaper := context.WithCancel(context.Background())
	reaped := make(chan struct{})
	go func() {
		defer close(reaped)
		proctree.RunReaper(ctx, n.owns)
	}()
	n.out.msg(&message{Ev: evHello, Version: protoVersion,
		Node: fmt.Sprintf("agentty %s %s %s/%s", version, sysname(), runtime.GOOS, runtime.GOARCH)})

	err := n.readLoop(bufio.NewReaderSize(r, 64<<10))
	n.endAll()
	n.wg.Wait()
	n.out.close()
	stopReaper()
	<-reaped
	if errors.Is(err, io.EOF) {
		return nil
	}
	return err
}

func (n *node) owns(pid int) bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.roots[pid]
}

// readLoop dispatches requests until the input ends.
func (n *node) readLoop(r *bufio.Reader) error {
	var buf []byte
	for {
		kind, p, err := readFrame(r, &buf)
		if err != nil {
			return err
		}
		if kind != kindMsg {
			return fmt.Errorf("node protocol: unexpected frame kind %q", kind)
		}
		var q request
		if err := json.Unmarshal(p, &q); err != nil {
			return fmt.Errorf("node protocol: %w", err)
		}
		n.dispatch(q)
	}
}

func (n *node) dispatch(q request) {
	switch q.Op {
	case opPing:
		n.out.msg(&message{Re: q.ID})
	case opStart:
		n.start(q)
	case opExec:
		n.wg.Add(1)
		go func() {
			defer n.wg.Done()
			n.exec(q)
		}()
	default:
		n.mu.Lock()
		p := n.procs[q.Proc]
		n.mu.Unlock()
		if p == nil {
			n.out.msg(&message{Re: q.ID, Err: fmt.Sprintf("no process %d on this node", q.Proc)})
			return
		}
		switch q.Op {
		case opWrite, opCloseIn:
			p.reqs <- q // input stays in order: the worker takes one request at a time
		case opClose:
			n.mu.Lock()
			delete(n.procs, q.Proc)
			n.mu.Unlock()
			close(p.reqs)
		default:
			// Probes, signals and termination never wait behind a write
			// the program does not take.
			n.wg.Add(1)
			go func() {
				defer n.wg.Done()
				n.out.msg(p.handle(q))
			}()
		}
	}
}

// start starts the program a request describes.
func (n *node) start(q request) {
	reply := &message{Re: q.ID}
	spec, err := n.spec(q.Start)
	if err != nil {
		errReply(reply, err)
		n.out.msg(reply)
		return
	}
	n.mu.Lock()
	n.nextID++
	id := n.nextID
	n.mu.Unlock()
	// Output can come before the start reply is queued; the client knows
	// the process only from that reply, so earlier output waits for it.
	var (
		gateMu sync.Mutex
		open   bool     // guarded by gateMu
		held   [][]byte // guarded by gateMu; output before the reply
		heldS  []byte   // guarded by gateMu; their streams
	)
	sink := func(s outlog.Stream, b []byte) {
		gateMu.Lock()
		defer gateMu.Unlock()
		if !open {
			held, heldS = append(held, slices.Clone(b)), append(heldS, byte(s))
			return
		}
		n.out.put(kindOut, outHeader(id, byte(s)), b)
	}
	var proc backend.Process
	n.mu.Lock() // held across the start, so the reaper cannot take the root before it is recorded
	if q.Start.PTY {
		proc, err = backend.StartPTY(spec, n.spawner.Do, sink)
	} else {
		proc, err = backend.StartPipe(spec, n.spawner.Do, sink)
	}
	if err != nil {
		n.mu.Unlock()
		errReply(reply, fmt.Errorf("start %s: %w", spec.Path, err))
		n.out.msg(reply)
		return
	}
	p := &nodeProc{id: id, proc: proc, reqs: make(chan request, 64)}
	n.procs[id] = p
	n.roots[proc.PID()] = true
	n.mu.Unlock()
	reply.Proc, reply.PID = id, proc.PID()
	gateMu.Lock()
	n.out.msg(reply)
	for i, b := range held {
		n.out.put(kindOut, outHeader(id, heldS[i]), b)
	}
	open, held, heldS = true, nil, nil
	gateMu.Unlock()

	n.wg.Add(3)
	go func() {
		defer n.wg.Done()
		for q := range p.reqs {
			n.out.msg(p.handle(q))
		}
		proc.Close()
	}()
	go func() {
		defer n.wg.Done()
		ex, err := proc.Wait()
		if err != nil && ex.Lost == "" {
			ex.Lost = err.Error()
		}
		n.out.msg(&message{Ev: evExit, Proc: id, Exit: &ex})
	}()
	go func() {
		defer n.wg.Done()
		<-proc.Drained()
		n.out.msg(&message{Ev: evDrained, Proc: id})
	}()
}

// spec resolves a start request on this machine: the program is looked up
// on the PATH the program will see, the environment is the node's plus the
// request's.
func (n *node) spec(rs *backend.RemoteSpec) (backend.Spec, error) {
	if rs == nil || len(rs.Argv) == 0 {
		return backend.Spec{}, errors.New("nothing to run")
	}
	env := map[string]string{}
	for _, kv := range os.Environ() {
		if k, v, ok := bytes.Cut([]byte(kv), []byte("=")); ok {
			env[string(k)] = string(v)
		}
	}
	maps.Copy(env, rs.Env)
	if rs.PTY && env["TERM"] == "" {
		env["TERM"] = "xterm-256color"
	}
	marker := proctree.EnvKey + "=" + rs.Marker
	env[proctree.EnvKey] = rs.Marker
	if env["PATH"] == "" {
		env["PATH"] = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
	}
	dir := rs.Dir
	if dir == "" {
		dir = n.cwd
	}
	path, err := lookPath(rs.Argv[0], env["PATH"], dir)
	if err != nil {
		return backend.Spec{}, err
	}
	kv := make([]string, 0, len(env))
	for _, k := range slices.Sorted(maps.Keys(env)) {
		kv = append(kv, k+"="+env[k])
	}
	return backend.Spec{Path: path, Argv: slices.Clone(rs.Argv), Dir: dir, Env: kv, Rows: rs.Rows, Cols: rs.Cols,
		MergeStderr: rs.MergeStderr, Marker: marker}, nil
}

// handle answers one request for p.
func (p *nodeProc) handle(q request) *message {
	m := &message{Re: q.ID}
	var err error
	switch q.Op {
	case opWrite:
		m.N, err = p.proc.Write(q.Data, time.Now().Add(time.Duration(q.Timeout)))
	case opCloseIn:
		err = p.proc.CloseStdin()
	case opResize:
		err = p.proc.Resize(q.Rows, q.Cols)
	case opInspect:
		pr, perr := p.proc.Inspect()
		m.Probe, err = &pr, perr
	case opQuiet:
		m.Quiet = p.proc.Quiet()
	case opSignal:
		err = p.proc.Signal(syscall.Signal(q.Signal))
	case opTerminate:
		err = p.proc.Terminate(context.Background(), time.Duration(q.Grace))
	case opTermios:
		t, terr := p.proc.Termios()
		m.Modes, err = &t, terr
	case opListening:
		m.Sockets, err = p.proc.Listening()
	default:
		err = fmt.Errorf("node protocol: unknown operation %q", q.Op)
	}
	errReply(m, err)
	return m
}

// exec runs a short sh script with stdin and replies with its stdout.
func (n *node) exec(q request) {
	m := &message{Re: q.ID}
	cmd := exec.Command("/bin/sh", append([]string{"-c", q.Script, "sh"}, q.Args...)...)
	cmd.Dir = n.cwd
	cmd.Stdin = bytes.NewReader(q.Data)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	// Owned while it runs, or the orphan reaper may collect its exit
	// status first and Wait fails with ECHILD.
	n.mu.Lock()
	err := cmd.Start()
	if err == nil {
		n.roots[cmd.Process.Pid] = true
	}
	n.mu.Unlock()
	if err == nil {
		err = cmd.Wait()
		n.mu.Lock()
		delete(n.roots, cmd.Process.Pid)
		n.mu.Unlock()
	}
	m.Out = stdout.Bytes()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			err = fmt.Errorf("%w: exit status %d: %s", ErrRemoteCommand, ee.ExitCode(), bytes.TrimSpace(stderr.Bytes()))
		}
		errReply(m, err)
	}
	n.out.msg(m)
}

// endAll ends every process tree the node started: its client is gone.
func (n *node) endAll() {
	n.mu.Lock()
	procs := slices.Collect(maps.Values(n.procs))
	n.procs = map[uint32]*nodeProc{}
	n.mu.Unlock()
	var wg sync.WaitGroup
	for _, p := range procs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_ = p.proc.Terminate(context.Background(), endGrace)
			close(p.reqs)
		}()
	}
	wg.Wait()
}
