//go:build linux

package main

// The Docker test environment, shared by every e2e_docker test of the
// package: a dockerd started here with a private data root and socket, an
// image imported from a root filesystem assembled from this machine's files
// (a static busybox, python3 and vim with their libraries), and a static
// agentty for the nodes. Built once per test run (dockerEnv), torn down
// after the package's tests (TestMain runs cleanups).

import (
	"archive/tar"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/client"
	"golang.org/x/sys/unix"
)

type dockerTestEnv struct {
	host  string // DOCKER_HOST
	cli   *client.Client
	image string
	node  string // static agentty for AGENTTY_NODE_BINARY
	log   string // dockerd's log file
	skip  string // why Docker cannot run here
	err   error
}

var (
	dockerOnce sync.Once
	dockerEnvV dockerTestEnv
)

// dockerEnv starts the shared environment, or skips t with the reason
// dockerd cannot run here.
func dockerEnv(t testing.TB) *dockerTestEnv {
	t.Helper()
	dockerOnce.Do(func() { dockerEnvV = setupDocker() })
	if dockerEnvV.skip != "" {
		t.Skip(dockerEnvV.skip)
	}
	if dockerEnvV.err != nil {
		t.Fatal(dockerEnvV.err)
	}
	return &dockerEnvV
}

func setupDocker() dockerTestEnv {
	dockerd, err := exec.LookPath("dockerd")
	if err != nil {
		return dockerTestEnv{skip: "dockerd not installed (scripts/test installs Debian's docker.io)"}
	}
	if os.Getuid() != 0 {
		return dockerTestEnv{skip: "dockerd needs root"}
	}
	// Short: a unix socket path must fit in 108 bytes.
	dir, err := os.MkdirTemp("", "agd")
	if err != nil {
		return dockerTestEnv{err: err}
	}
	atExit(func() {
		unmountUnder(dir)
		os.RemoveAll(dir)
	})
	sock := filepath.Join(dir, "d.sock")
	logf, err := os.Create(filepath.Join(dir, "dockerd.log"))
	if err != nil {
		return dockerTestEnv{err: err}
	}
	cmd := exec.Command(dockerd, "--data-root", filepath.Join(dir, "data"), "--exec-root", filepath.Join(dir, "exec"),
		"-H", "unix://"+sock, "--pidfile", filepath.Join(dir, "d.pid"), "--iptables=false", "--ip6tables=false",
		"--bridge=none", "--storage-driver=overlay2")
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		return dockerTestEnv{skip: "dockerd cannot start: " + err.Error()}
	}
	exited := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		close(exited)
	}()
	atExit(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		select {
		case <-exited:
		case <-time.After(20 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
		}
		logf.Close()
	})
	env := dockerTestEnv{host: "unix://" + sock, log: logf.Name()}
	env.cli, err = client.New(client.WithHost(env.host))
	if err != nil {
		return dockerTestEnv{err: err}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	for {
		if _, err := env.cli.Ping(ctx, client.PingOptions{}); err == nil {
			break
		}
		select {
		case <-exited:
			log, _ := os.ReadFile(logf.Name())
			return dockerTestEnv{skip: "dockerd cannot run on this machine: " + lastLines(string(log), 5)}
		case <-ctx.Done():
			return dockerTestEnv{err: fmt.Errorf("dockerd did not answer within 60s")}
		case <-time.After(50 * time.Millisecond): // the socket appears when dockerd is ready; nothing to wait on
		}
	}
	if env.image, err = importImage(ctx, env.cli); err != nil {
		return dockerTestEnv{err: err}
	}
	if env.node, err = buildStatic(); err != nil {
		return dockerTestEnv{err: err}
	}
	return env
}

// unmountUnder detaches what dockerd left mounted under dir (it bind-mounts
// its data root), deepest first, so the directory can be removed.
func unmountUnder(dir string) {
	b, err := os.ReadFile("/proc/self/mounts")
	if err != nil {
		return
	}
	var mps []string
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) > 1 && strings.HasPrefix(f[1], dir+"/") {
			mps = append(mps, f[1])
		}
	}
	slices.SortFunc(mps, func(a, b string) int { return len(b) - len(a) })
	for _, mp := range mps {
		_ = unix.Unmount(mp, unix.MNT_DETACH)
	}
}

func lastLines(s string, n int) string {
	l := strings.Split(strings.TrimSpace(s), "\n")
	return strings.Join(l[max(0, len(l)-n):], "\n")
}

// importImage docker-imports a root filesystem of this machine's busybox,
// python3 and vim.
func importImage(ctx context.Context, cli *client.Client) (string, error) {
	var buf bytes.Buffer
	if err := rootfs(&buf); err != nil {
		return "", err
	}
	const ref = "agentty-test:latest"
	rc, err := cli.ImageImport(ctx, client.ImageImportSource{Source: &buf, SourceName: "-"}, ref, client.ImageImportOptions{})
	if err != nil {
		return "", fmt.Errorf("docker import: %w", err)
	}
	_, err = io.Copy(io.Discard, rc)
	rc.Close()
	return ref, err
}

// rootfs writes a tar of the test image's files.
func rootfs(w io.Writer) error {
	tw := tar.NewWriter(w)
	seen := map[string]bool{}
	dir := func(name string) error {
		for d := filepath.Dir(name); d != "/" && !seen[d]; d = filepath.Dir(d) {
			seen[d] = true
			defer tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: strings.TrimPrefix(d, "/") + "/", Mode: 0o755})
		}
		return nil
	}
	var addErr error
	add := func(src, dst string) {
		if addErr != nil || seen[dst] {
			return
		}
		fi, err := os.Lstat(src)
		if err != nil {
			addErr = err
			return
		}
		_ = dir(dst)
		seen[dst] = true
		name := strings.TrimPrefix(dst, "/")
		switch {
		case fi.Mode()&fs.ModeSymlink != 0:
			target, _ := os.Readlink(src)
			addErr = tw.WriteHeader(&tar.Header{Typeflag: tar.TypeSymlink, Name: name, Linkname: target, Mode: 0o777})
		case fi.IsDir():
			addErr = tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: name + "/", Mode: 0o755})
		default:
			b, err := os.ReadFile(src)
			if err != nil {
				addErr = err
				return
			}
			if addErr = tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: name, Mode: int64(fi.Mode().Perm()), Size: int64(len(b))}); addErr == nil {
				_, addErr = tw.Write(b)
			}
		}
	}
	// addTree adds a directory, leaving out what the tests never import.
	skip := regexp.MustCompile(`/(test|tests|idlelib|tkinter|turtledemo|ensurepip|lib2to3|site-packages|dist-packages|config-[^/]*)(/|$)`)
	addTree := func(root string) {
		_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || skip.MatchString(p) {
				if d != nil && d.IsDir() {
					return filepath.SkipDir
				}
				return nil
			}
			add(p, p)
			return nil
		})
	}
	// addELF adds a program and the libraries ldd names.
	addELF := func(p string) {
		real, err := filepath.EvalSymlinks(p)
		if err != nil {
			addErr = err
			return
		}
		add(real, real)
		if real != p {
			add(real, p)
		}
		out, err := exec.Command("ldd", real).Output()
		if err != nil {
			return // static
		}
		for _, m := range regexp.MustCompile(`(/\S+)`).FindAllString(string(out), -1) {
			lr, err := filepath.EvalSymlinks(m)
			if err == nil {
				add(lr, lr)
				if lr != m {
					add(lr, m)
				}
			}
		}
	}
	for _, d := range []string{"/tmp", "/root", "/proc", "/sys", "/dev", "/etc", "/bin", "/usr/bin"} {
		add("/", d) // directories
	}
	busybox, err := exec.LookPath("busybox")
	if err != nil {
		return fmt.Errorf("busybox not installed (scripts/test installs busybox-static): %w", err)
	}
	addELF(busybox)
	add(busybox, "/bin/busybox")
	for _, applet := range []string{"sh", "seq", "sleep", "cat", "echo", "ls", "ps", "pwd", "env", "true", "false", "id", "head", "mkdir", "rm", "sed", "grep", "stty", "tr", "wc", "uname", "test", "printf", "kill"} {
		tw.WriteHeader(&tar.Header{Typeflag: tar.TypeSymlink, Name: "bin/" + applet, Linkname: "busybox", Mode: 0o777})
	}
	addELF("/usr/bin/python3")
	addTree("/usr/lib/python3.11")
	addELF("/usr/bin/vim")
	for _, ti := range []string{"/lib/terminfo/x/xterm", "/lib/terminfo/x/xterm-256color", "/usr/share/terminfo/x/xterm-256color", "/lib/terminfo/d/dumb"} {
		if _, err := os.Stat(ti); err == nil {
			add(ti, ti)
		}
	}
	add("/etc/passwd", "/etc/passwd")
	add("/etc/group", "/etc/group")
	if addErr != nil {
		return addErr
	}
	return tw.Close()
}

// container starts a container of the test image that only sleeps, and
// removes it when t ends.
func (e *dockerTestEnv) container(t testing.TB) string {
	t.Helper()
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	name := "agentty-t-" + hex.EncodeToString(b)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	_, err := e.cli.ContainerCreate(ctx, client.ContainerCreateOptions{Name: name,
		Config:     &container.Config{Image: e.image, Cmd: []string{"/bin/sleep", "100000"}, Env: []string{"PATH=/usr/bin:/bin", "HOME=/root"}, WorkingDir: "/root"},
		HostConfig: &container.HostConfig{NetworkMode: "none"}})
	if err != nil {
		log, _ := os.ReadFile(e.log)
		t.Fatalf("%v\ndockerd log:\n%s", err, lastLines(string(log), 20))
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		_, _ = e.cli.ContainerRemove(ctx, name, client.ContainerRemoveOptions{Force: true})
	})
	if _, err := e.cli.ContainerStart(ctx, name, client.ContainerStartOptions{}); err != nil {
		t.Fatal(err)
	}
	return name
}

// top lists the container's processes' commands.
func (e *dockerTestEnv) top(t testing.TB, name string) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := e.cli.ContainerTop(ctx, name, client.ContainerTopOptions{})
	if err != nil {
		t.Fatal(err)
	}
	col := len(res.Titles) - 1
	var out []string
	for _, p := range res.Processes {
		out = append(out, p[col])
	}
	return out
}

// serve starts agentty serve (this test binary) with DOCKER_HOST set, the
// static build as the node binary and the link built beside it.
func (e *dockerTestEnv) serve(t testing.TB) *server {
	t.Helper()
	return startServerWith(t, func(c *exec.Cmd) {
		c.Env = append(c.Env, "DOCKER_HOST="+e.host, "AGENTTY_NODE_BINARY="+e.node, "AGENTTY_NODE_LINK="+staticLink(e.node))
	})
}
