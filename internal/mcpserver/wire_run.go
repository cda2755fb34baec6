package mcpserver

import "github.com/agentty/agentty/internal/runner"

// Stream is one captured output stream of run_command: the wire form of
// runner.Stream.
type Stream struct {
	Text         string `json:"text"`
	Bytes        int64  `json:"bytes" jsonschema:"bytes the program wrote to this stream"`
	Lines        int64  `json:"lines" jsonschema:"lines the program wrote (a final unterminated line counts)"`
	Truncated    bool   `json:"truncated"`
	OmittedBytes int64  `json:"omitted_bytes,omitempty" jsonschema:"bytes left out of the middle of text"`
}

// Check is one success criterion of run_command and whether it held.
type Check struct {
	Name   string `json:"name"`
	OK     bool   `json:"ok"`
	Detail string `json:"detail"`
}

// PageInfo locates a page of run_command's stdout lines.
type PageInfo struct {
	Page       int   `json:"page"`
	PageSize   int   `json:"page_size"`
	TotalLines int64 `json:"total_lines"`
	HasNext    bool  `json:"has_next"`
	Clipped    bool  `json:"clipped,omitempty" jsonschema:"the page was cut at 4 MiB (very long lines)"`
}

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
