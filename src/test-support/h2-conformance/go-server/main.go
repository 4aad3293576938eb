// An HTTP/2 server on golang.org/x/net/http2 for the conformance suite of src/lib/http2
// (conformance.go.test.ts). Prints "listening PORT" once it listens on 127.0.0.1.
//   -max-streams N    SETTINGS_MAX_CONCURRENT_STREAMS
//   -window N         the initial stream window it gives us (MaxUploadBufferPerStream)
// Paths: /echo (the body back), /slow (reads the body 1,000 bytes at a time, 2 ms apart: its
// window opens slowly), /hold (answers after 100 ms; /max then tells the most held at once),
// /stall (never reads; waits for the client to cancel), /abort (RST_STREAM INTERNAL_ERROR),
// /shutdown (graceful shutdown: GOAWAY while streams are in flight; they still finish).
package main

import (
	"context"
	"crypto/tls"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"sync"
	"time"

	"golang.org/x/net/http2"
)

func main() {
	maxStreams := flag.Uint("max-streams", 100, "max concurrent streams")
	window := flag.Int("window", 65535, "initial stream window")
	cert := flag.String("cert", "", "certificate PEM file")
	key := flag.String("key", "", "key PEM file")
	flag.Parse()

	var mu sync.Mutex
	held, most := 0, 0
	mux := http.NewServeMux()
	srv := &http.Server{Handler: mux}
	mux.HandleFunc("/echo", func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		w.Write(body)
	})
	mux.HandleFunc("/slow", func(w http.ResponseWriter, r *http.Request) {
		buf := make([]byte, 1000)
		total := 0
		for {
			n, err := r.Body.Read(buf)
			total += n
			if err != nil {
				break
			}
			time.Sleep(2 * time.Millisecond)
		}
		fmt.Fprint(w, total)
	})
	mux.HandleFunc("/hold", func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		held++
		if held > most {
			most = held
		}
		mu.Unlock()
		time.Sleep(100 * time.Millisecond)
		mu.Lock()
		held--
		mu.Unlock()
		w.Write([]byte("held"))
	})
	mux.HandleFunc("/max", func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprint(w, most)
	})
	mux.HandleFunc("/stall", func(w http.ResponseWriter, r *http.Request) {
		<-r.Context().Done()
	})
	mux.HandleFunc("/abort", func(w http.ResponseWriter, r *http.Request) {
		panic(http.ErrAbortHandler)
	})
	shutDown := make(chan struct{})
	mux.HandleFunc("/shutdown", func(w http.ResponseWriter, r *http.Request) {
		go func() {
			srv.Shutdown(context.Background())
			close(shutDown)
		}()
		w.Write([]byte("shutting down"))
	})
	http2.ConfigureServer(srv, &http2.Server{MaxConcurrentStreams: uint32(*maxStreams), MaxUploadBufferPerStream: int32(*window)})
	pair, err := tls.LoadX509KeyPair(*cert, *key)
	if err != nil {
		panic(err)
	}
	srv.TLSConfig.Certificates = []tls.Certificate{pair}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	fmt.Println("listening " + strconv.Itoa(ln.Addr().(*net.TCPAddr).Port))
	os.Stdout.Sync()
	if err := srv.ServeTLS(ln, "", ""); err == http.ErrServerClosed {
		// Shutdown returns once the streams in flight have finished.
		<-shutDown
	}
}
