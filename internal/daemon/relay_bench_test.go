package daemon

import (
	"bufio"
	"net"
	"os"
	"testing"
)

// echo answers every line on c with the same line, as a daemon answers a
// request with a response.
func echo(c net.Conn) {
	r := bufio.NewReader(c)
	for {
		line, err := r.ReadBytes('\n')
		if err != nil {
			c.Close()
			return
		}
		if _, err := c.Write(line); err != nil {
			return
		}
	}
}

// request is a typical send_input call, as a client writes it.
var request = []byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"send_input","arguments":{"session_id":"s1","text":"print(6*7)","enter":true}}}` + "\n")

// BenchmarkRelay_RoundTrip is one request and its answer through Relay:
// client pipe → relay → unix socket → daemon and back. Compare with
// BenchmarkRelay_Direct, the same over the socket alone: the difference is
// what the relaying serve adds to every MCP round trip.
func BenchmarkRelay_RoundTrip(b *testing.B) {
	relay, d := socketPair(b)
	go echo(d)
	inR, inW, _ := os.Pipe()
	outR, outW, _ := os.Pipe()
	done := make(chan struct{})
	go func() {
		_ = Relay(inR, outW, relay)
		close(done)
	}()
	out := bufio.NewReader(outR)
	b.ResetTimer()
	for b.Loop() {
		if _, err := inW.Write(request); err != nil {
			b.Fatal(err)
		}
		if _, err := out.ReadBytes('\n'); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	inW.Close()
	<-done
	outR.Close()
	outW.Close()
}

// BenchmarkRelay_Direct is the round trip over the socket without a relay.
func BenchmarkRelay_Direct(b *testing.B) {
	client, d := socketPair(b)
	go echo(d)
	in := bufio.NewReader(client)
	for b.Loop() {
		if _, err := client.Write(request); err != nil {
			b.Fatal(err)
		}
		if _, err := in.ReadBytes('\n'); err != nil {
			b.Fatal(err)
		}
	}
}
