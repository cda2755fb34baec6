package stdio

import (
	"bytes"
	"encoding/json"
	"io"
	"strconv"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// The SDK's message codec decodes through a decoder that allocates a
// 32 KiB buffer per call (two per incoming message) and encodes a reply by
// copying and re-validating its result, which it marshalled itself: for a
// 4 MiB page of output that is another 4 MiB pass. The common messages
// take the short paths here, which produce exactly what the SDK's codec
// produces (TestFast_SameAsSDK); anything else goes through the SDK.

// encodeFast writes a successful response with a numeric id as
// {"jsonrpc":"2.0","id":N,"result":R}, the bytes jsonrpc.EncodeMessage
// writes, with the line's newline; ok is false for any other message.
// The result is the SDK's own compact JSON, so it is copied as it is.
func encodeFast(msg jsonrpc.Message) (line []byte, ok bool) {
	r, isResp := msg.(*jsonrpc.Response)
	if !isResp || r.Error != nil || len(r.Result) == 0 {
		return nil, false
	}
	id, isInt := r.ID.Raw().(int64)
	if !isInt {
		return nil, false
	}
	const head, mid = `{"jsonrpc":"2.0","id":`, `,"result":`
	b := make([]byte, 0, len(head)+20+len(mid)+len(r.Result)+2)
	b = append(b, head...)
	b = strconv.AppendInt(b, id, 10)
	b = append(b, mid...)
	b = append(b, r.Result...)
	return append(b, '}', '\n'), true
}

// decodeFast decodes a request or notification whose top-level keys are
// matched exactly, as the SDK does; ok is false for a response, an error,
// or anything unusual, which jsonrpc.DecodeMessage then decides on (and
// words the error of).
func decodeFast(line []byte) (msg jsonrpc.Message, ok bool) {
	if tooDeep(line) {
		return nil, false // the SDK refuses it with its own words
	}
	dec := json.NewDecoder(bytes.NewReader(line))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, false
	}
	var (
		version, method string
		hasMethod       bool
		rawID           any
		params          json.RawMessage
	)
	for dec.More() {
		t, err := dec.Token()
		key, isKey := t.(string)
		if err != nil || !isKey {
			return nil, false
		}
		switch key {
		case "jsonrpc":
			err = dec.Decode(&version)
		case "id":
			rawID = nil
			err = dec.Decode(&rawID)
		case "method":
			method, hasMethod = "", true
			err = dec.Decode(&method)
		case "params":
			params = nil
			err = dec.Decode(&params)
		case "result", "error":
			return nil, false
		default:
			var skip json.RawMessage
			err = dec.Decode(&skip)
		}
		if err != nil {
			return nil, false
		}
	}
	if t, err := dec.Token(); err != nil || t != json.Delim('}') {
		return nil, false
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, false // trailing data: the SDK's decoder words it
	}
	if version != "2.0" || !hasMethod {
		return nil, false
	}
	if f, isNum := rawID.(float64); isNum && f != float64(int64(f)) {
		return nil, false
	}
	id, err := jsonrpc.MakeID(rawID)
	if err != nil {
		return nil, false
	}
	return &jsonrpc.Request{ID: id, Method: method, Params: params}, true
}
