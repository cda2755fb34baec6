// Command agentty-link reaches a Docker container or a Kubernetes pod for
// agentty serve: it starts `agentty node` there (copying a static agentty
// in when needed) and relays the node's stdin and stdout over its own.
// agentty starts one per docker:// or k8s:// host (docs/nodes.md); it is a
// program of its own so agentty's server links no container clients and
// starts fast. It is not meant to be run by hand: it reports on fd 3.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/agentty/agentty/internal/nodelink"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

func run(args []string, in io.Reader, out io.WriteCloser, stderr io.Writer) int {
	fs := flag.NewFlagSet("agentty-link", flag.ContinueOnError)
	fs.SetOutput(stderr)
	version := fs.String("version", "", "version of the agentty that starts the link (names the copy in the target)")
	binary := fs.String("binary", "", "static agentty to copy into the target when it has none of this build")
	statusHandle := fs.Uint64("status-handle", 0, "Windows: the inherited handle of the status pipe (agentty serve sets it; elsewhere fd 3)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: agentty-link -version V -binary PATH docker://CONTAINER | k8s://NAMESPACE/POD[/CONTAINER]")
		fmt.Fprintln(stderr, "agentty serve starts it for docker:// and k8s:// hosts, with status records on fd 3 (on Windows the handle -status-handle names; docs/nodes.md).")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() != 1 || *version == "" || *binary == "" {
		fs.Usage()
		return 2
	}
	status, err := statusPipe(*statusHandle)
	if err != nil {
		fmt.Fprintln(stderr, "agentty-link:", err)
		return 2
	}
	defer status.Close()
	return nodelink.Run(fs.Arg(0), &nodelink.Options{Version: *version, Binary: *binary}, in, out, status)
}
