package backend

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"testing"

	"github.com/agentty/agentty/internal/proctree"
)

// winChildEnv makes the test binary one of the programs the Windows tests
// start (winChild).
const winChildEnv = "BACKEND_TEST_WIN_CHILD"

// TestMain lets this test binary deliver console events (it is the
// sessions' agentty executable: Spec.Keeper) and be the tests' programs.
func TestMain(m *testing.M) {
	if len(os.Args) == 4 && os.Args[1] == proctree.CtrlArg {
		os.Exit(proctree.RunCtrl(os.Args[2:]))
	}
	if mode := os.Getenv(winChildEnv); mode != "" {
		os.Exit(winChild(mode))
	}
	os.Exit(m.Run())
}

// winChild runs one program of the Windows tests.
func winChild(mode string) int {
	switch mode {
	case "print": // known bytes on each stream, a known exit code
		fmt.Fprint(os.Stdout, "out\n")
		fmt.Fprint(os.Stderr, "err\n")
		return 7
	case "cat": // stdin to stdout until end of input
		if _, err := io.Copy(os.Stdout, os.Stdin); err != nil {
			return 1
		}
		return 0
	case "sleep": // until ended
		select {}
	case "tree": // a grandchild, whose pid it prints, then sleeps
		cmd := exec.Command(os.Args[0])
		cmd.Env = append(os.Environ(), winChildEnv+"=sleep")
		if err := cmd.Start(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		fmt.Printf("%d\n", cmd.Process.Pid)
		select {}
	case "closestdin": // closes its stdin, says so, and sleeps
		os.Stdin.Close()
		fmt.Println("closed")
		select {}
	case "flood": // 256 KiB, then exits while a grandchild keeps stdout open
		cmd := exec.Command(os.Args[0])
		cmd.Env = append(os.Environ(), winChildEnv+"=sleep")
		cmd.Stdout = os.Stdout
		if err := cmd.Start(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		line := strings.Repeat("x", 1023) + "\n"
		for range 256 {
			fmt.Print(line)
		}
		return 0
	case "ctrlc": // exits 42 on Ctrl+C, once it said it is ready
		c := make(chan os.Signal, 1)
		signal.Notify(c, os.Interrupt)
		fmt.Println("ready")
		_, _ = bufio.NewReader(os.Stdin).ReadString('\n') // keeps stdin open; Ctrl+C ends it
		<-c
		return 42
	}
	fmt.Fprintln(os.Stderr, "unknown mode", mode)
	return 2
}
