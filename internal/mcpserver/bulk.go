package mcpserver

import (
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A long output travels once. The text content, which every client shows
// the model, carries it; structuredContent would carry it a second time,
// doubling the reply (a full page took twice the bytes, and twice the
// encoding and decoding, on both sides). Above sendOnceBytes the output is
// therefore the first text content block, exactly, and structuredContent
// says so (output_in: "content") with output left empty. toolcall.Call puts
// it back for Go clients.
const sendOnceBytes = 64 << 10

// OutputInContent is output_in's value when the output is the first text
// content block.
const OutputInContent = "content"

// outputMover is a result that can give up its output for the content block.
type outputMover interface {
	// takeOutput empties the output and marks it as sent in content, and
	// returns it, when it is longer than sendOnceBytes.
	takeOutput() (string, bool)
}

func (r *ReadResult) takeOutput() (string, bool) { return take(&r.Output, &r.OutputIn) }
func (r *ExecResult) takeOutput() (string, bool) { return take(&r.Output, &r.OutputIn) }

func take(output, in *string) (string, bool) {
	if len(*output) <= sendOnceBytes {
		return "", false
	}
	o := *output
	*output, *in = "", OutputInContent
	return o, true
}

// splitText turns a result's text rendering, which contains its output,
// into the content blocks of a send-once reply: the output, then the rest
// of the rendering (summary line, hints), so that the blocks joined read
// as the rendering did (a prefix before the output, like start_process's
// "started" line, moves after it).
func splitText(text, output string) []mcp.Content {
	before, after, _ := strings.Cut(text, output)
	rest := after
	if before != "" {
		rest = before + strings.TrimPrefix(after, "\n")
		if !strings.HasSuffix(output, "\n") {
			rest = "\n" + rest
		}
	}
	return []mcp.Content{&mcp.TextContent{Text: output}, &mcp.TextContent{Text: rest}}
}
