package stdio

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// TestFast_SameAsSDK: where the short paths take a message, they produce
// what the SDK's codec does; where they do not, the SDK decides.
func TestFast_SameAsSDK(t *testing.T) {
	decodes := []struct {
		line string
		fast bool // the short path must take it
	}{
		{`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"send_input","arguments":{"session_id":"s1","text":"print(1)","enter":true}}}`, true},
		{`{"jsonrpc":"2.0","method":"notifications/initialized"}`, true},
		{`{"method":"ping","id":"abc","jsonrpc":"2.0"}`, true},
		{`{"jsonrpc":"2.0","id":7,"method":"tools/list","params":null}`, true},
		{`{"jsonrpc":"2.0","id":7,"method":"x","params": { "a" : [1, 2 ,3] , "b":"\u00e9<>&" } }`, true},
		{`{"jsonrpc":"2.0","id":9007199254740991,"method":"m","params":{}}`, true},
		{`{"jsonrpc":"2.0","id":null,"method":"m"}`, true},
		{`{"jsonrpc":"2.0","id":1,"method":"m","extra":{"deep":[{"x":1}]}}`, true},
		{`{"jsonrpc":"2.0","id":1,"method":"a","method":"b"}`, true},
		{`{"jsonrpc":"2.0","id":1,"method":"\u0074ools/list"}`, true},
		{`{"jsonrpc":"2.0","id":1,"method":""}`, true},
		{`{"jsonrpc":"2.0","id":1,"method":null}`, true},
		// Left to the SDK.
		{`{"jsonrpc":"2.0","id":1,"Method":"tools/list"}`, false},
		{`{"jsonrpc":"2.0","id":1,"result":{}}`, false},
		{`{"jsonrpc":"2.0","id":1,"error":{"code":-1,"message":"x"}}`, false},
		{`{"jsonrpc":"1.0","id":1,"method":"m"}`, false},
		{`{"id":1,"method":"m"}`, false},
		{`{"jsonrpc":"2.0","id":1.5,"method":"m"}`, false},
		{`{"jsonrpc":"2.0","id":true,"method":"m"}`, false},
		{`{"jsonrpc":"2.0","id":1,"method":3}`, false},
		{`{"jsonrpc":"2.0","id":1,"method":"m"} x`, false},
		{`{"jsonrpc":"2.0","id":1,"method":"m"`, false},
		{`[{"jsonrpc":"2.0","id":1,"method":"m"}]`, false},
		{`"text"`, false},
		{`{"jsonrpc":"2.0","id":1,"method":"ping","params":` + strings.Repeat(`{"a":`, maxDepth) + `1` + strings.Repeat(`}`, maxDepth) + `}`, false},
	}
	for _, c := range decodes {
		t.Run("decode "+excerptOf(c.line), func(t *testing.T) {
			got, ok := decodeFast([]byte(c.line))
			if ok != c.fast {
				t.Fatalf("short path took it: %v, want %v", ok, c.fast)
			}
			if !ok {
				return
			}
			want, err := jsonrpc.DecodeMessage([]byte(c.line))
			if err != nil {
				t.Fatalf("the SDK refuses what the short path took: %v", err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("short path %#v, SDK %#v", got, want)
			}
		})
	}

	results := []any{
		map[string]any{"output": "4\n>>> ", "cursor": 18, "html": "<b>&</b>", "u": "é\u2028"},
		map[string]any{},
		[]int{1, 2, 3},
		"text",
	}
	for i, r := range results {
		raw := sdkJSON(t, r)
		resp, err := jsonrpc.EncodeMessage(&jsonrpc.Response{ID: mustID(t, float64(i+1)), Result: sdkJSON(t, r)})
		if err != nil {
			t.Fatal(err)
		}
		got, ok := encodeFast(&jsonrpc.Response{ID: mustID(t, float64(i+1)), Result: sdkJSON(t, r)})
		if !ok {
			t.Fatalf("result %s: short path did not take it", raw)
		}
		if string(got) != string(resp)+"\n" {
			t.Fatalf("short path %s\nSDK        %s", got, resp)
		}
	}
	for _, m := range []jsonrpc.Message{
		&jsonrpc.Response{ID: mustID(t, "s"), Result: json.RawMessage(`{}`)},
		&jsonrpc.Response{ID: mustID(t, float64(1)), Error: errors.New("x")},
		&jsonrpc.Response{ID: mustID(t, float64(1))},
		&jsonrpc.Request{ID: mustID(t, float64(1)), Method: "ping"},
	} {
		if _, ok := encodeFast(m); ok {
			t.Errorf("short path took %#v", m)
		}
	}
}

func mustID(t *testing.T, v any) jsonrpc.ID {
	t.Helper()
	id, err := jsonrpc.MakeID(v)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// sdkJSON marshals v as the SDK marshals a result: compact, HTML left as is.
func sdkJSON(t *testing.T, v any) json.RawMessage {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

func excerptOf(s string) string {
	if len(s) > 80 {
		return s[:80]
	}
	return s
}
