// Command llmload measures how many chat completions a second one
// llm.Client achieves against the fake endpoint, started in-process, and
// how many 429s the endpoint had to answer (see docs/PERFORMANCE.md).
//
//	go run ./bench/llmload -workers 16 -latency 200ms -duration 10s
//	go run ./bench/llmload -workers 16 -rps 20 -latency 200ms -duration 10s
//	go run ./bench/llmload -workers 16 -server-concurrency 4 -latency 200ms -duration 10s
//
// Workers call Complete in a loop and start no new call once -duration has
// passed; the calls under way then finish and count. The achieved rate is
// the calls completed over the time from the start to the last answer. The
// ideal rate is workers/latency, or -rps when that is lower; with
// -server-concurrency N, the fake answers 429 to a call beyond N at once,
// and the ideal is a client that keeps exactly N in flight: N/latency.
// With -rps, the fake answers 429 to requests faster than -server-rps
// (default: -rps). A call failed once all its attempts did.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/benchgate/benchgate/internal/fakeopenai"
	"github.com/benchgate/benchgate/llm"
)

func main() {
	workers := flag.Int("workers", 16, "concurrent callers sharing one client")
	rps := flag.Float64("rps", 0, "the client's request-rate limit; 0 for none")
	serverRPS := flag.Float64("server-rps", -1, "the fake's rate limit (429 beyond it); -1 means the same as -rps, 0 none")
	serverBurst := flag.Int("server-burst", 0, "the fake's rate-limit bucket size; 0 means its default, 2")
	serverConc := flag.Int("server-concurrency", 0, "the most calls the fake answers at once (429 beyond); 0 for no limit")
	latency := flag.Duration("latency", 200*time.Millisecond, "the fake's time to answer")
	duration := flag.Duration("duration", 10*time.Second, "how long to send")
	flag.Parse()
	if *workers < 1 || *rps < 0 || *serverBurst < 0 || *serverConc < 0 || *latency <= 0 || *duration <= 0 {
		fmt.Fprintln(os.Stderr, "llmload: -workers must be at least 1, -rps, -server-burst and -server-concurrency not negative, -latency and -duration positive")
		os.Exit(2)
	}
	if *serverRPS < 0 {
		*serverRPS = *rps
	}
	if err := run(*workers, *rps, *serverRPS, *serverBurst, *serverConc, *latency, *duration); err != nil {
		fmt.Fprintln(os.Stderr, "llmload:", err)
		os.Exit(1)
	}
}

func run(workers int, rps, serverRPS float64, serverBurst, serverConc int, latency, duration time.Duration) error {
	srv, err := fakeopenai.NewServer(fakeopenai.Options{Key: "sk-load", Latency: latency, RateLimit: serverRPS, RateBurst: serverBurst, MaxConcurrent: serverConc})
	if err != nil {
		return err
	}
	defer srv.Close()
	client, err := llm.New(llm.Config{BaseURL: srv.URL, APIKey: "sk-load", RPS: rps, Timeout: 30 * time.Second})
	if err != nil {
		return err
	}

	req := llm.Request{
		Model:    "load/model",
		Messages: []llm.Message{{Role: "user", Content: "Which letter comes first? A, B, C or D."}},
	}
	var ok, failed atomic.Int64
	var latencySum atomic.Int64 // nanoseconds
	var firstErr atomic.Value
	var wg sync.WaitGroup
	start := time.Now()
	for range workers {
		wg.Go(func() {
			for time.Since(start) < duration {
				resp, err := client.Complete(context.Background(), req)
				if err != nil {
					failed.Add(1)
					firstErr.CompareAndSwap(nil, err.Error())
					continue
				}
				ok.Add(1)
				latencySum.Add(int64(resp.Latency))
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)

	calls, status := srv.Stats()
	inFlight := workers
	if serverConc > 0 {
		inFlight = min(workers, serverConc)
	}
	ideal := float64(inFlight) / latency.Seconds()
	if rps > 0 && rps < ideal {
		ideal = rps
	}
	achieved := float64(ok.Load()) / elapsed.Seconds()
	limit := orNone(serverRPS)
	if serverRPS > 0 {
		burst := serverBurst
		if burst == 0 {
			burst = 2 // the fake's default
		}
		limit += fmt.Sprintf(" (burst %d)", burst)
	}
	conc := "none"
	if serverConc > 0 {
		conc = fmt.Sprint(serverConc)
	}
	fmt.Printf("workers %d, client rps %s, server limit %s, server concurrency %s, latency %v, duration %v\n",
		workers, orNone(rps), limit, conc, latency, duration)
	var mean time.Duration
	if n := ok.Load(); n > 0 {
		mean = time.Duration(latencySum.Load() / n)
	}
	fmt.Printf("completed %d in %.3f s, failed %d; mean latency %v; server saw %d calls, statuses %v\n",
		ok.Load(), elapsed.Seconds(), failed.Load(), mean.Round(10*time.Microsecond), calls, status)
	if e := firstErr.Load(); e != nil {
		fmt.Printf("first failure: %s\n", e)
	}
	tried := ok.Load() + failed.Load()
	fmt.Printf("achieved %.2f req/s, ideal %.2f req/s, ratio %.3f, 429s %d, failed %d of %d (%.1f%%)\n",
		achieved, ideal, achieved/ideal, status[429], failed.Load(), tried, 100*float64(failed.Load())/float64(max(tried, 1)))
	return nil
}

func orNone(v float64) string {
	if v <= 0 {
		return "none"
	}
	return fmt.Sprintf("%g/s", v)
}
