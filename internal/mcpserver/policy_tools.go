package mcpserver

import (
	"context"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Text implements texter.
func (r PolicyResult) Text() string {
	var b strings.Builder
	if !r.Enabled {
		b.WriteString("command policy: off (any command may run)\n")
	} else {
		fmt.Fprintf(&b, "command policy: on\nallow: %v\ndeny: %v\ndeny_patterns: %v\nconfirm: %v\nconfirm_patterns: %v\ncwd roots: %v\nsecure (argv only): %v\n",
			r.Rules.Allow, r.Rules.Deny, r.Rules.DenyPatterns, r.Rules.Confirm, r.Rules.ConfirmPatterns, r.Rules.Cwd, r.Rules.Secure)
	}
	fmt.Fprintf(&b, "protected: %v\n", r.Protected)
	if c := r.Containment; c != nil {
		b.WriteString(containmentPolicyText(c))
	}
	b.WriteString(strings.Join(r.Notes, "\n"))
	return b.String()
}

func (t *tools) registerPolicy(srv *mcp.Server) {
	add(srv, t.log, &mcp.Tool{Name: "get_policy", Description: "Show which commands may run and the protected directories; check it after a refusal.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}}, t.getPolicy)
}

func (t *tools) getPolicy(context.Context, *mcp.CallToolRequest, struct{}) (PolicyResult, error) {
	p := t.gate.Policy()
	r := PolicyResult{Enabled: p.Enabled(), Rules: PolicyRules(p.Rules()), Protected: p.Protected(), MaxReadBytes: t.gate.MaxRead(),
		Containment: containmentPolicy(t.mgr.ContainProfile(), t.mgr.ContainSupport())}
	if r.Enabled {
		r.Notes = []string{
			"Every simple command in a shell command line is checked, including inside $(...), pipes, sh -c and wrappers like env, sudo, xargs, find -exec.",
			"Refused as undecidable: eval, source, alias, command names from variables or globs, computed redirection targets, arithmetic on variables, PATH/LD_* assignments.",
			"At an interactive shell prompt send whole lines with enter=true; editing and history keys are refused.",
		}
	} else {
		r.Notes = []string{"Only the protected directories are off limits."}
	}
	return r, nil
}
