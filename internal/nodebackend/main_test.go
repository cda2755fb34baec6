package nodebackend

import (
	"context"
	"io"
	"os"
	"os/exec"
	"sync"
	"testing"
)

// nodeEnv makes the test binary an `agentty node` (see TestMain), so the
// protocol is tested over a real child's stdio: the same stream an
// engine's exec carries.
const nodeEnv = "AGENTTY_TEST_NODE"

func TestMain(m *testing.M) {
	fakeLinkMain()
	if os.Getenv(nodeEnv) == "1" {
		if err := Serve(os.Stdin, os.Stdout, "test"); err != nil {
			os.Stderr.WriteString(err.Error())
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// execStream is a node started as a local child.
type execStream struct {
	cmd  *exec.Cmd
	in   io.WriteCloser
	out  io.ReadCloser
	errb BoundedBuf
	once sync.Once
}

func (s *execStream) Read(p []byte) (int, error)  { return s.out.Read(p) }
func (s *execStream) Write(p []byte) (int, error) { return s.in.Write(p) }
func (s *execStream) Stderr() string              { return s.errb.String() }
func (s *execStream) Why() string                 { return "" }

func (s *execStream) Close() error {
	s.once.Do(func() {
		s.in.Close()
		_ = s.cmd.Wait()
	})
	return nil
}

// localDial starts the test binary as a node.
func localDial(_ context.Context, _ string) (Stream, error) {
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), nodeEnv+"=1")
	s := &execStream{cmd: cmd}
	cmd.Stderr = &s.errb
	var err error
	if s.in, err = cmd.StdinPipe(); err != nil {
		return nil, err
	}
	if s.out, err = cmd.StdoutPipe(); err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	return s, nil
}
