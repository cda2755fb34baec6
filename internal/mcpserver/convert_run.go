package mcpserver

import "github.com/agentty/agentty/internal/runner"

// runChecks converts the criteria, keeping nil nil.
func runChecks(cs []runner.Check) []Check {
	return convert(cs, func(c runner.Check) Check { return Check(c) })
}

// runPage converts the page, nil when the run was not paged.
func runPage(p *runner.PageInfo) *PageInfo {
	if p == nil {
		return nil
	}
	w := PageInfo(*p)
	return &w
}
