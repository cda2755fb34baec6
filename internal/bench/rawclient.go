package bench

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// rawClient speaks MCP to "agentty serve" by writing and reading the
// JSON-RPC lines itself: the requests the SDK client sends, without the
// SDK's own work on the client side (a decoder and a 32 KiB buffer per
// message, a goroutine hand-off per reply, their collections). Round trips
// timed with it are what the server and the kernel cost; what the SDK
// client's take beyond that is the client's.
type rawClient struct {
	cmd  *exec.Cmd
	in   io.WriteCloser
	out  *bufio.Reader
	id   int64
	meta map[string]any // sent with every request under the stateless protocol; nil otherwise
	line []byte         // scratch for the request being encoded
}

// statelessProtocol is the first MCP version whose requests each carry the
// client's version, information and capabilities (_meta) instead of an
// initialize handshake.
const statelessProtocol = "2026-07-28"

// startRaw starts a server as rn.server does (serveCommand) and opens protocol version
// (the one the SDK client negotiated) with it.
func (rn *runner) startRaw(version string) (*rawClient, error) {
	cmd, err := rn.serveCommand()
	if err != nil {
		return nil, err
	}
	return rn.startRawCommand(cmd, version)
}

// startRawCommand starts cmd, an "agentty serve" of any kind, and opens
// protocol version with it.
func (rn *runner) startRawCommand(cmd *exec.Cmd, version string) (*rawClient, error) {
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	c := &rawClient{cmd: cmd, in: in, out: bufio.NewReaderSize(out, 1<<20)}
	if err := c.open(version, rn.version); err != nil {
		c.close()
		return nil, err
	}
	return c, nil
}

// open opens protocol version with the server, as clientVersion of the
// bench's client.
func (c *rawClient) open(version, clientVersion string) error {
	var err error
	info := map[string]any{"name": "agentty-bench-raw", "version": clientVersion}
	if version >= statelessProtocol {
		c.meta = map[string]any{
			mcp.MetaKeyProtocolVersion:    version,
			mcp.MetaKeyClientInfo:         info,
			mcp.MetaKeyClientCapabilities: map[string]any{"roots": map[string]any{"listChanged": true}},
		}
		_, err = c.request("server/discover", map[string]any{})
	} else {
		_, err = c.request("initialize", map[string]any{"protocolVersion": version, "capabilities": map[string]any{}, "clientInfo": info})
		if err == nil {
			err = c.send(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"})
		}
	}
	if err != nil {
		return fmt.Errorf("raw client: open %s: %w", version, err)
	}
	return nil
}

func (c *rawClient) send(msg map[string]any) error {
	b, err := json.Marshal(msg)
	if err != nil {
		return err
	}
	c.line = append(append(c.line[:0], b...), '\n')
	_, err = c.in.Write(c.line)
	return err
}

// request sends a request and returns its result, skipping notifications
// the server sends meanwhile.
func (c *rawClient) request(method string, params map[string]any) (json.RawMessage, error) {
	c.id++
	if c.meta != nil {
		params["_meta"] = c.meta
	}
	if err := c.send(map[string]any{"jsonrpc": "2.0", "id": c.id, "method": method, "params": params}); err != nil {
		return nil, err
	}
	for {
		line, err := c.out.ReadSlice('\n')
		if err != nil {
			return nil, err
		}
		var m struct {
			ID     json.RawMessage `json:"id"`
			Result json.RawMessage `json:"result"`
			Error  *struct {
				Message string `json:"message"`
			} `json:"error"`
		}
		if err := json.Unmarshal(line, &m); err != nil {
			return nil, fmt.Errorf("reply %q: %w", line, err)
		}
		if string(m.ID) != strconv.FormatInt(c.id, 10) {
			continue
		}
		if m.Error != nil {
			return nil, errors.New(m.Error.Message)
		}
		return m.Result, nil
	}
}

// call invokes a tool and decodes its structured result into out; a tool
// error is an error, as with toolcall.Checked.
func (c *rawClient) call(name string, args map[string]any, out any) error {
	b, err := c.request("tools/call", map[string]any{"name": name, "arguments": args})
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	// Only what a reply of these calls holds is decoded: a long output
	// sent in the content instead (output_in) would read as a mismatch.
	var res struct {
		IsError bool `json:"isError"`
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
		StructuredContent json.RawMessage `json:"structuredContent"`
	}
	if err := json.Unmarshal(b, &res); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	if res.IsError {
		var text strings.Builder
		for _, c := range res.Content {
			text.WriteString(c.Text)
		}
		return fmt.Errorf("%s: %s", name, text.String())
	}
	if out == nil {
		return nil
	}
	return json.Unmarshal(res.StructuredContent, out)
}

// close ends the server: stdin closed is the end of its client.
func (c *rawClient) close() {
	_ = c.in.Close()
	done := make(chan struct{})
	go func() {
		_ = c.cmd.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		_ = c.cmd.Process.Kill()
		<-done
	}
}

// rawRoundTrips times n send_input round trips to python3 on a PTY as
// agenttyRoundTrips does (sendRounds), through a rawClient speaking
// version.
func (rn *runner) rawRoundTrips(ctx context.Context, n int, version string) ([]time.Duration, int, error) {
	c, err := rn.startRaw(version)
	if err != nil {
		return nil, 0, err
	}
	defer c.close()
	// A server that stops answering must not hang the bench.
	stop := context.AfterFunc(ctx, func() { _ = c.cmd.Process.Kill() })
	defer stop()
	time.Sleep(settleWait) // as in repl: timed on a settled server
	var st struct {
		SessionID string `json:"session_id"`
		Reason    string `json:"reason"`
	}
	if err := c.call("start_process", map[string]any{"argv": []string{"python3", "-q"}, "mode": "pty"}, &st); err != nil {
		return nil, 0, err
	}
	if st.Reason != "awaiting_input" {
		return nil, 0, fmt.Errorf("start_process returned %q, want awaiting_input", st.Reason)
	}
	ds, bad, err := sendRounds(n, "raw client", st.SessionID, func(args map[string]any, out any) error {
		return c.call("send_input", args, out)
	}, func(out, want string) bool { return out == want+"\n>>> " })
	if err != nil {
		return nil, 0, err
	}
	return ds, bad, c.call("terminate_process", map[string]any{"session_id": st.SessionID, "force": true}, nil)
}
