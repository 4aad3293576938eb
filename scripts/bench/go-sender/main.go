// The Go baseline of the fan-out benchmark (scripts/bench/go-baseline.ts builds and runs it): a bare
// sender on golang.org/x/net/http2, the transport gorush runs on, with no database and no queue.
// It sends N APNs requests (the headers and payload Islet sends, one random token each) to the
// stand-in over the layout Islet's APNs client uses: `connections` HTTP/2 connections with up to
// `streams` requests in flight on each (fewer when the server's SETTINGS say so).
// Reads its job as JSON on stdin {url, ca, authorization, headers, body, n, connections, streams};
// prints {"go_per_s", "cpu_us_per_request", "n", "ms"}.
// Built offline from Debian's packages: GOPATH=/usr/share/gocode GO111MODULE=off go build.
package main

import (
	"bytes"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/net/http2"
)

type job struct {
	URL           string            `json:"url"`
	CA            string            `json:"ca"`
	Authorization string            `json:"authorization"`
	Headers       map[string]string `json:"headers"`
	Body          string            `json:"body"`
	N             int               `json:"n"`
	Connections   int               `json:"connections"`
	Streams       int               `json:"streams"`
}

func cpuUs() int64 {
	var u syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &u)
	return u.Utime.Sec*1e6 + u.Utime.Usec + u.Stime.Sec*1e6 + u.Stime.Usec
}

func fail(format string, a ...any) {
	fmt.Fprintf(os.Stderr, "go-sender: "+format+"\n", a...)
	os.Exit(1)
}

func main() {
	var j job
	if err := json.NewDecoder(os.Stdin).Decode(&j); err != nil {
		fail("reading the job: %v", err)
	}
	target, err := url.Parse(j.URL)
	if err != nil {
		fail("url: %v", err)
	}
	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM([]byte(j.CA))
	tlsConfig := &tls.Config{RootCAs: roots, ServerName: "localhost", NextProtos: []string{"h2"}}
	tokens := make([]string, j.N)
	raw := make([]byte, 32)
	for i := range tokens {
		rand.Read(raw)
		tokens[i] = hex.EncodeToString(raw)
	}
	body := []byte(j.Body)

	// One ClientConn per connection, as Islet holds its sessions (not a pool that opens more).
	transport := &http2.Transport{TLSClientConfig: tlsConfig, StrictMaxConcurrentStreams: true}
	conns := make([]*http2.ClientConn, j.Connections)
	for c := range conns {
		tc, err := tls.Dial("tcp", target.Host, tlsConfig)
		if err != nil {
			fail("connecting: %v", err)
		}
		if conns[c], err = transport.NewClientConn(tc); err != nil {
			fail("HTTP/2: %v", err)
		}
	}

	var next, failed int64 = -1, 0
	var wg sync.WaitGroup
	cpuBefore := cpuUs()
	started := time.Now()
	for _, cc := range conns {
		for s := 0; s < j.Streams; s++ {
			wg.Add(1)
			go func(cc *http2.ClientConn) {
				defer wg.Done()
				for {
					i := atomic.AddInt64(&next, 1)
					if i >= int64(j.N) {
						return
					}
					req, _ := http.NewRequest("POST", j.URL+"/3/device/"+tokens[i], bytes.NewReader(body))
					req.ContentLength = int64(len(body))
					req.Header.Set("authorization", j.Authorization)
					for k, v := range j.Headers {
						req.Header.Set(k, v)
					}
					res, err := cc.RoundTrip(req)
					if err != nil {
						atomic.AddInt64(&failed, 1)
						continue
					}
					io.Copy(io.Discard, res.Body)
					res.Body.Close()
					if res.StatusCode != 200 {
						atomic.AddInt64(&failed, 1)
					}
				}
			}(cc)
		}
	}
	wg.Wait()
	elapsed := time.Since(started)
	cpu := cpuUs() - cpuBefore
	if failed > 0 {
		fail("%d of %d requests failed", failed, j.N)
	}
	out, _ := json.Marshal(map[string]int64{
		"go_per_s":           int64(float64(j.N) / elapsed.Seconds()),
		"cpu_us_per_request": cpu / int64(j.N),
		"n":                  int64(j.N),
		"ms":                 elapsed.Milliseconds(),
	})
	fmt.Println(string(out))
}
