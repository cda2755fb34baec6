//go:build linux

package sandbox

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"

	llsys "github.com/landlock-lsm/go-landlock/landlock/syscall"

	"github.com/agentty/agentty/internal/contain"
)

// Detect fills the sandbox part of s: the Landlock ABI, whether a private
// network namespace can be made, rlimits.
func Detect(s *contain.Support) {
	d := detected()
	s.LandlockABI, s.LandlockNote = d.abi, d.abiNote
	s.NetNS, s.NetNSNote = d.netns, d.netnsNote
	s.Rlimits = true
}

type detection struct {
	abi       int
	abiNote   string
	netns     bool
	netnsNote string
}

var detected = sync.OnceValue(func() detection {
	var d detection
	v, err := llsys.LandlockGetABIVersion()
	switch {
	case err != nil:
		d.abiNote = fmt.Sprintf("the kernel has no Landlock (%v); it needs CONFIG_SECURITY_LANDLOCK and landlock in the lsm= boot list", err)
	case v < 1:
		d.abiNote = "Landlock is disabled in this kernel"
	default:
		d.abi = v
	}
	d.netns, d.netnsNote = netnsPossible()
	return d
})

// netnsPossible: root may create a network namespace; others need a user
// namespace to hold CAP_NET_ADMIN in it.
func netnsPossible() (bool, string) {
	if _, err := os.Stat("/proc/self/ns/net"); err != nil {
		return false, "the kernel has no network namespaces"
	}
	if os.Geteuid() == 0 {
		return true, ""
	}
	if b, err := os.ReadFile("/proc/sys/user/max_user_namespaces"); err == nil && strings.TrimSpace(string(b)) == "0" {
		return false, "user namespaces are off (user.max_user_namespaces = 0), and agentty is not root"
	}
	if b, err := os.ReadFile("/proc/sys/kernel/unprivileged_userns_clone"); err == nil && strings.TrimSpace(string(b)) == "0" {
		return false, "unprivileged user namespaces are off (kernel.unprivileged_userns_clone = 0), and agentty is not root"
	}
	if _, err := os.Stat("/proc/self/ns/user"); errors.Is(err, os.ErrNotExist) {
		return false, "the kernel has no user namespaces, and agentty is not root"
	}
	return true, ""
}
