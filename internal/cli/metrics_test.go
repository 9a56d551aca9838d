package cli

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/rumbench/rumbench/internal/memcap"
)

// TestMetricsFromWorker runs sqlite under --memory-limit (its steps in an engine worker
// process) with --metrics-listen 127.0.0.1:0 and scrapes the endpoint every 200 ms: the
// coordinator serves the worker's streamed samples, and the last scrape (the run waits for
// it) has the step records' counts: the load's rows and each query kind's measured count.
func TestMetricsFromWorker(t *testing.T) {
	h, err := memcap.Detect()
	if err != nil {
		t.Skipf("skipping: %v", err)
	}
	if err := h.Check(); err != nil {
		t.Skipf("skipping: cgroups cannot be written here: %v", err)
	}
	out, _, d := dirs(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], append([]string{"run", "--engine", "sqlite", "--steps", "l.i0,qr100", "--rows", "5000",
		"--query-secs", "3", "--warmup-secs", "0", "--memory-limit", "256M", "--metrics-listen", "127.0.0.1:0", "--quiet"}, d...)...)
	cmd.Env = append(os.Environ(), childMain+"=1")
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var errText strings.Builder
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			errText.WriteString(sc.Text() + "\n")
			if m := regexp.MustCompile(`metrics at (http://\S+)`).FindStringSubmatch(sc.Text()); m != nil {
				addr <- m[1]
			}
		}
		close(addr)
	}()
	url, ok := <-addr
	if !ok {
		cmd.Wait()
		t.Fatalf("no metrics address printed:\n%s", errText.String())
	}
	var mu sync.Mutex
	var last string
	scraped := make(chan struct{})
	go func() {
		defer close(scraped)
		for ctx.Err() == nil {
			resp, err := http.Get(url)
			if err != nil {
				return // the run has ended
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode == 200 {
				mu.Lock()
				last = string(body)
				mu.Unlock()
			}
			time.Sleep(200 * time.Millisecond)
		}
	}()
	err = cmd.Wait()
	for range addr { // the reader of stderr is done
	}
	if err != nil {
		t.Fatalf("run: %v\n%s", err, errText.String())
	}
	<-scraped
	_, _, steps := readRun(t, out)
	mu.Lock()
	defer mu.Unlock()
	value := func(name, step, kind string) float64 {
		for _, l := range strings.Split(last, "\n") {
			if strings.HasPrefix(l, name+"{") && strings.Contains(l, fmt.Sprintf(`step=%q`, step)) &&
				(kind == "" || strings.Contains(l, fmt.Sprintf(`kind=%q`, kind))) {
				v, _ := strconv.ParseFloat(l[strings.LastIndexByte(l, ' ')+1:], 64)
				return v
			}
		}
		t.Errorf("no %s of step %s %s in the last scrape:\n%s", name, step, kind, last)
		return -1
	}
	for _, s := range steps {
		if s.Step == "l.i0" {
			if v := value("rumbench_ops_total", s.Step, ""); v != float64(s.Ops) {
				t.Errorf("l.i0: %v ops scraped, the record's %d", v, s.Ops)
			}
		}
		for _, k := range s.Kinds {
			if v := value("rumbench_response_seconds_count", s.Step, k.Name); v != float64(k.Ops) {
				t.Errorf("%s %s: %v scraped, the record's %d", s.Step, k.Name, v, k.Ops)
			}
		}
	}
	if !strings.Contains(last, `target="sqlite",engine="sqlite"`) || !strings.Contains(last, "# EOF") {
		t.Errorf("last scrape:\n%s", last)
	}
}
