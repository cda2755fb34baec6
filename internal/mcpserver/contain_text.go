package mcpserver

import (
	"encoding/json"
	"fmt"
	"strings"
)

// containmentLine renders how a session is held, in one line.
func containmentLine(c *ContainmentInfo) string {
	var b strings.Builder
	fmt.Fprintf(&b, "containment: %s", c.Kind)
	if c.Why != "" {
		fmt.Fprintf(&b, " (%s)", c.Why)
	}
	if len(c.Sandbox) > 0 {
		fmt.Fprintf(&b, " sandbox=%s", strings.Join(c.Sandbox, ","))
	}
	for _, part := range []struct {
		name string
		m    map[string]int64
	}{{"limits", c.Limits}, {"usage", c.Usage}} {
		if len(part.m) > 0 {
			j, _ := json.Marshal(part.m) // keys sorted
			fmt.Fprintf(&b, " %s=%s", part.name, j)
		}
	}
	return b.String()
}

// containmentPolicyText renders get_policy's containment part.
func containmentPolicyText(c *ContainmentPolicy) string {
	var b strings.Builder
	k := c.Kernel
	fmt.Fprintf(&b, "kernel: cgroup=%t controllers=%v landlock_abi=%d netns=%t rlimits=%t\n", k.Cgroup, k.Controllers, k.LandlockABI, k.NetNS, k.Rlimits)
	if k.CgroupVia != "" {
		fmt.Fprintf(&b, "cgroup via: %s\n", k.CgroupVia)
	}
	for _, n := range k.Notes {
		fmt.Fprintf(&b, "note: %s\n", n)
	}
	if c.Limits != nil {
		j, _ := json.Marshal(c.Limits)
		fmt.Fprintf(&b, "limits: %s\n", j)
	}
	if c.Sandbox != nil {
		j, _ := json.Marshal(c.Sandbox)
		fmt.Fprintf(&b, "sandbox: %s\n", j)
	}
	return b.String()
}
