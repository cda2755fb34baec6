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
	if u := c.Usage; u != nil {
		fmt.Fprintf(&b, " processes=%d cpu=%dms", u.Processes, u.CPUMs)
		if u.MemoryBytes >= 0 {
			fmt.Fprintf(&b, " memory=%dB peak=%dB", u.MemoryBytes, u.MemoryPeakBytes)
		}
		if u.OOMKills > 0 {
			fmt.Fprintf(&b, " oom_kills=%d", u.OOMKills)
		}
	}
	return b.String()
}

// containmentPolicyText renders get_policy's containment part.
func containmentPolicyText(c *ContainmentPolicy) string {
	var b strings.Builder
	k := c.Kernel
	cg := "no"
	if k.Cgroup {
		cg = "yes"
	}
	fmt.Fprintf(&b, "kernel: cgroup=%s controllers=%v landlock_abi=%d netns=%t rlimits=%t\n", cg, k.Controllers, k.LandlockABI, k.NetNS, k.Rlimits)
	if k.CgroupNote != "" {
		fmt.Fprintf(&b, "cgroup note: %s\n", k.CgroupNote)
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
