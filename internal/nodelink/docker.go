package nodelink

import (
	"archive/tar"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/agentty/agentty/internal/nodebackend"
	cerrdefs "github.com/containerd/errdefs"
	"github.com/moby/moby/api/pkg/stdcopy"
	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/client"
)

// docker reaches containers through the Docker Engine API (DOCKER_HOST and
// the other DOCKER_* variables, else the default socket).
type docker struct {
	once sync.Once
	cli  *client.Client
	err  error
}

func (d *docker) client() (*client.Client, error) {
	d.once.Do(func() {
		d.cli, d.err = client.New(client.FromEnv)
	})
	return d.cli, d.err
}

func (d *docker) close() {
	if d.cli != nil {
		_ = d.cli.Close()
	}
}

// dial starts `agentty node` in the container name and returns its stdio.
func (d *docker) dial(ctx context.Context, name string, o *Options) (Stream, started, error) {
	var st started
	cli, err := d.client()
	if err != nil {
		return nil, st, fmt.Errorf("docker: %w: set DOCKER_HOST to the Docker socket", err)
	}
	ins, err := cli.ContainerInspect(ctx, name, client.ContainerInspectOptions{})
	if err != nil {
		if cerrdefs.IsNotFound(err) {
			return nil, st, fmt.Errorf("no container %q: start it first (agentty never starts containers) or check the name with docker ps", name)
		}
		return nil, st, fmt.Errorf("docker: inspect container %q: %w (is Docker running and DOCKER_HOST right?)", name, err)
	}
	ct := ins.Container
	if ct.State == nil || !ct.State.Running {
		state := "not running"
		if ct.State != nil {
			state = string(ct.State.Status)
		}
		return nil, st, fmt.Errorf("container %q is %s: start it (docker start %s) and try again", name, state, name)
	}
	st, err = d.ensureBinary(ctx, cli, name, ct.Image, o)
	if err != nil {
		return nil, st, err
	}
	ex, err := cli.ExecCreate(ctx, name, client.ExecCreateOptions{Cmd: []string{st.exe, "node"},
		AttachStdin: true, AttachStdout: true, AttachStderr: true})
	if err != nil {
		return nil, st, fmt.Errorf("docker: exec in container %q: %w", name, err)
	}
	hr, err := cli.ExecAttach(ctx, ex.ID, client.ExecAttachOptions{})
	if err != nil {
		return nil, st, fmt.Errorf("docker: attach to exec in container %q: %w", name, err)
	}
	return newDockerStream(cli, name, hr.HijackedResponse), st, nil
}

// ensureBinary returns the path of an agentty the node can run in the
// container, copying this one in when no copy of this build is there.
func (d *docker) ensureBinary(ctx context.Context, cli *client.Client, name, image string, o *Options) (started, error) {
	b, dir, exe, err := shipped(o)
	if err != nil {
		return started{}, err
	}
	if sp, err := cli.ContainerStatPath(ctx, name, client.ContainerStatPathOptions{Path: exe}); err == nil && sp.Stat.Size == b.size {
		return started{exe: exe}, nil
	}
	if d.onPath(ctx, cli, name, o.Version) {
		return started{exe: "agentty"}, nil
	}
	if im, err := cli.ImageInspect(ctx, image); err == nil && im.Architecture != "" && goArch(im.Architecture) != b.arch {
		return started{}, fmt.Errorf("container %q runs %s images, but the agentty to copy in is built for %s: give agentty serve -node-binary with a static agentty built with GOARCH=%s", name, im.Architecture, b.arch, goArch(im.Architecture))
	}
	f, err := os.Open(b.path)
	if err != nil {
		return started{}, err
	}
	defer f.Close()
	pr, pw := io.Pipe()
	go func() {
		pw.CloseWithError(tarBinary(pw, strings.TrimPrefix(dir, "/tmp/"), f, b.size))
	}()
	_, err = cli.CopyToContainer(ctx, name, client.CopyToContainerOptions{DestinationPath: "/tmp", Content: pr})
	pr.CloseWithError(errors.New("copy ended"))
	if err != nil {
		return started{}, fmt.Errorf("cannot copy agentty into container %q at %s: %w: the container needs a writable /tmp ", name, exe, err)
	}
	return started{exe: exe, copied: b.size}, nil
}

// onPath says whether the container has an agentty of this very version on
// its PATH (`agentty version` prints the same line), which then serves as
// the node instead of a copy.
func (d *docker) onPath(ctx context.Context, cli *client.Client, name, version string) bool {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	ex, err := cli.ExecCreate(ctx, name, client.ExecCreateOptions{Cmd: []string{"agentty", "version"}, AttachStdout: true, AttachStderr: true})
	if err != nil {
		return false
	}
	hr, err := cli.ExecAttach(ctx, ex.ID, client.ExecAttachOptions{})
	if err != nil {
		return false
	}
	defer hr.Close()
	var out nodebackend.BoundedBuf
	if _, err := stdcopy.StdCopy(&out, io.Discard, hr.Reader); err != nil {
		return false
	}
	st, err := cli.ExecInspect(ctx, ex.ID, client.ExecInspectOptions{})
	return err == nil && !st.Running && st.ExitCode == 0 && isVersion(out.String(), version)
}

// tarBinary writes a tar of dir/agentty holding f.
func tarBinary(w io.Writer, dir string, f io.Reader, size int64) error {
	tw := tar.NewWriter(w)
	now := time.Now()
	if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: dir + "/", Mode: 0o700, ModTime: now}); err != nil {
		return err
	}
	if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: dir + "/agentty", Mode: 0o755, Size: size, ModTime: now}); err != nil {
		return err
	}
	if _, err := io.CopyN(tw, f, size); err != nil {
		return err
	}
	return tw.Close()
}

// dockerStream is a node's stdio over a hijacked exec connection; a
// goroutine splits the multiplexed output into stdout (the protocol) and
// stderr (kept for error messages). Close ends the connection, which
// closes the node's stdin.
type dockerStream struct {
	cli  *client.Client
	name string
	hr   client.HijackedResponse
	out  *io.PipeReader
	errb nodebackend.BoundedBuf
	done chan struct{} // closed when the demultiplexer returns
	once sync.Once
}

func newDockerStream(cli *client.Client, name string, hr client.HijackedResponse) *dockerStream {
	pr, pw := io.Pipe()
	s := &dockerStream{cli: cli, name: name, hr: hr, out: pr, done: make(chan struct{})}
	go func() {
		defer close(s.done)
		_, err := stdcopy.StdCopy(pw, &s.errb, hr.Reader)
		pw.CloseWithError(err)
	}()
	return s
}

func (s *dockerStream) Read(p []byte) (int, error)  { return s.out.Read(p) }
func (s *dockerStream) Write(p []byte) (int, error) { return s.hr.Conn.Write(p) }
func (s *dockerStream) Stderr() string              { return s.errb.String() }

func (s *dockerStream) Close() error {
	s.once.Do(func() {
		s.hr.Close()
		s.out.Close()
		<-s.done
	})
	return nil
}

// whyWait bounds how long Why waits for the engine to see the container
// stop (the exec's stream can end before it records the exit); the rest
// of nodebackend.LinkWhyLimit is for the inspect that follows.
const whyWait = 3 * time.Second

// Why asks Docker what became of the container.
func (s *dockerStream) Why() string {
	ctx, cancel := context.WithTimeout(context.Background(), nodebackend.LinkWhyLimit)
	defer cancel()
	wctx, wcancel := context.WithTimeout(ctx, whyWait)
	w := s.cli.ContainerWait(wctx, s.name, client.ContainerWaitOptions{Condition: container.WaitConditionNotRunning})
	select {
	case <-w.Result:
	case <-w.Error: // still running after whyWait, or gone: inspect says which
	}
	wcancel()
	ins, err := s.cli.ContainerInspect(ctx, s.name, client.ContainerInspectOptions{})
	if err != nil {
		if cerrdefs.IsNotFound(err) {
			return fmt.Sprintf("container %q was removed", s.name)
		}
		return ""
	}
	st := ins.Container.State
	if st == nil || st.Running {
		return ""
	}
	why := fmt.Sprintf("container %q stopped (%s, exit code %d", s.name, st.Status, st.ExitCode)
	if st.OOMKilled {
		why += ", out of memory"
	}
	if st.Error != "" {
		why += ", " + st.Error
	}
	return why + ")"
}
