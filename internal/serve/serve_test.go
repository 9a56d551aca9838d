package serve_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/rumbench/rumbench/internal/cli"
	"github.com/rumbench/rumbench/internal/report/browsertest"
)

// syncBuffer is a buffer written by a command running on another goroutine.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// command runs rumbench args in-process until ctx ends (or it does), its output in stdout and
// stderr; done receives its exit code.
func command(ctx context.Context, args ...string) (stdout, stderr *syncBuffer, done chan int) {
	stdout, stderr, done = &syncBuffer{}, &syncBuffer{}, make(chan int, 1)
	go func() {
		done <- cli.Main(cli.Env{Stdout: stdout, Stderr: stderr, Getenv: os.Getenv, Now: time.Now, Args: args,
			Context: func() (context.Context, context.CancelFunc) { return context.WithCancel(ctx) }})
	}()
	return stdout, stderr, done
}

// runIn makes a tiny run labelled label in out and returns its id.
func runIn(t *testing.T, out, label string) string {
	stdout, stderr, done := command(context.Background(), "run", "--engine", "null,sqlite", "--steps", "l.i0,qr100", "--rows", "2000",
		"--query-secs", "1", "--label", label, "--out", out, "--data-dir", t.TempDir(), "--quiet")
	if code := <-done; code != 0 {
		t.Fatalf("run %s: exit %d\n%s%s", label, code, stdout, stderr)
	}
	m := regexp.MustCompile(`results: \S+/(\S+)`).FindStringSubmatch(stdout.String())
	if m == nil {
		t.Fatalf("run %s printed no results directory:\n%s", label, stdout)
	}
	return m[1]
}

// wait waits until cond holds, at most limit.
func wait(t *testing.T, limit time.Duration, what string, cond func() bool) {
	t.Helper()
	for end := time.Now().Add(limit); !cond(); time.Sleep(100 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("%s: not within %v", what, limit)
		}
	}
}

// TestServeInBrowser makes a store of two runs (labels a and b) and a third in progress,
// serves it with rumbench serve on a free loopback port and opens it in headless Chromium: the
// list shows the three runs, its label filter one; the comparison of the two renders its
// relative table and charts; the page of the run in progress gains points on its per-second
// chart while the run goes on.
func TestServeInBrowser(t *testing.T) {
	out := t.TempDir()
	a, b := runIn(t, out, "a"), runIn(t, out, "b")

	// The run in progress: a query step of 12 s after a load.
	runCtx, stopRun := context.WithCancel(context.Background())
	defer stopRun()
	liveOut, liveErr, liveDone := command(runCtx, "run", "--engine", "sqlite", "--steps", "l.i0,qr100", "--rows", "2000",
		"--query-secs", "12", "--label", "live", "--out", out, "--data-dir", t.TempDir(), "--quiet")

	srvCtx, stopServe := context.WithCancel(context.Background())
	_, srvErr, srvDone := command(srvCtx, "serve", "--store", filepath.Join(out, "rumbench.db"), "--listen", "127.0.0.1:0")
	defer func() {
		stopServe()
		if code := <-srvDone; code != 0 {
			t.Errorf("serve: exit %d: %s", code, srvErr)
		}
	}()
	var base string
	wait(t, 20*time.Second, "serve's address", func() bool {
		m := regexp.MustCompile(`at (http://\S+)/ `).FindStringSubmatch(srvErr.String())
		if m != nil {
			base = m[1]
		}
		return m != nil
	})

	// The live run's id, from the list once it is recorded there.
	var live string
	wait(t, 30*time.Second, "the live run in the list", func() bool {
		body := get(t, base+"/")
		if m := regexp.MustCompile(`value="(\S+-live)"`).FindStringSubmatch(body); m != nil {
			live = m[1]
		}
		return live != ""
	})

	ctx, console := browsertest.New(t, 3*time.Minute)
	var ids []string
	if err := chromedp.Run(ctx,
		chromedp.Navigate(base+"/"),
		chromedp.WaitVisible("#runs", chromedp.ByQuery),
		chromedp.Evaluate(`Array.from(document.querySelectorAll('#runs tbody input')).map(i => i.value)`, &ids),
	); err != nil {
		t.Fatal(err)
	}
	slices.Sort(ids)
	if want := []string{a, b, live}; !slices.Equal(ids, sorted(want)) {
		t.Errorf("the list shows %v, want %v", ids, want)
	}
	if err := chromedp.Run(ctx,
		chromedp.Navigate(base+"/?label=a"),
		chromedp.WaitVisible("#runs", chromedp.ByQuery),
		chromedp.Evaluate(`Array.from(document.querySelectorAll('#runs tbody input')).map(i => i.value)`, &ids),
	); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(ids, []string{a}) {
		t.Errorf("the list of label a shows %v, want [%s]", ids, a)
	}

	// Compare: tick a and b in the list and submit.
	var heading string
	var rows int
	var charts []browsertest.ChartState
	if err := chromedp.Run(ctx,
		chromedp.Navigate(base+"/"),
		chromedp.WaitVisible("#runs", chromedp.ByQuery),
		chromedp.Click(fmt.Sprintf(`input[value=%q]`, a), chromedp.ByQuery),
		chromedp.Click(fmt.Sprintf(`input[value=%q]`, b), chromedp.ByQuery),
		chromedp.Click(`#compare button`, chromedp.ByQuery),
		chromedp.WaitVisible(`#comparison`, chromedp.ByQuery),
		chromedp.Sleep(300*time.Millisecond), // echarts paints on the next animation frame
		chromedp.Text(`#comparison`, &heading, chromedp.ByQuery),
		chromedp.Evaluate(`document.querySelectorAll('td.num').length`, &rows),
		chromedp.Evaluate(browsertest.InspectJS, &charts),
	); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(heading, "Comparison (relative to") || rows == 0 {
		t.Errorf("comparison page: heading %q, %d numeric cells", heading, rows)
	}
	painted := 0
	for _, c := range charts {
		if c.Pixels > 0 && c.Painted > c.Pixels/200 {
			painted++
		}
	}
	if len(charts) == 0 || painted != len(charts) {
		t.Errorf("comparison page: %d of %d charts painted: %+v", painted, len(charts), charts)
	}

	// The run in progress: once its query step runs, its page's per-second chart of that
	// step gains points.
	wait(t, 60*time.Second, "the live run's query step", func() bool {
		var d struct {
			Charts []struct{ ID string } `json:"charts"`
		}
		json.Unmarshal([]byte(get(t, base+"/run/"+live+"/charts")), &d)
		return slices.ContainsFunc(d.Charts, func(c struct{ ID string }) bool { return c.ID == "s1-rate" }) // qr100's throughput
	})
	points := func() int {
		var cs []browsertest.ChartState
		if err := chromedp.Run(ctx, chromedp.Evaluate(browsertest.InspectJS, &cs)); err != nil {
			t.Fatal(err)
		}
		for _, c := range cs {
			if c.ID == "s1-rate" && len(c.Series) == 1 {
				return c.Series[0]
			}
		}
		t.Fatalf("no throughput chart of qr100 with one series: %+v", cs)
		return 0
	}
	var note string
	if err := chromedp.Run(ctx,
		chromedp.Navigate(base+"/run/"+live),
		chromedp.WaitVisible("#live-note", chromedp.ByQuery),
		chromedp.Sleep(300*time.Millisecond),
		chromedp.Text("#live-note", &note, chromedp.ByQuery),
	); err != nil {
		t.Fatal(err)
	}
	before := points()
	time.Sleep(5 * time.Second)
	after := points()
	t.Logf("live chart: %d points, then %d (%s)", before, after, note)
	if after <= before {
		t.Errorf("the live run's chart did not gain points: %d, then %d", before, after)
	}
	if code := <-liveDone; code != 0 {
		t.Errorf("live run: exit %d\n%s%s", code, liveOut, liveErr)
	}
	for _, e := range console.Errors() {
		t.Errorf("page logged %s", e)
	}
}

func sorted(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}

// get returns the body of url.
func get(t *testing.T, url string) string {
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return string(body)
}

// TestServeRequests checks what the pages refuse, each in one line: a run id that is not a
// name, an unknown run, a bad date, a comparison of one run, a method other than GET.
func TestServeRequests(t *testing.T) {
	out := t.TempDir()
	id := runIn(t, out, "a")
	ctx, stop := context.WithCancel(context.Background())
	_, stderr, done := command(ctx, "serve", "--out", out, "--listen", "127.0.0.1:0")
	defer func() {
		stop()
		<-done
	}()
	var base string
	wait(t, 20*time.Second, "serve's address", func() bool {
		m := regexp.MustCompile(`at (http://\S+)/ `).FindStringSubmatch(stderr.String())
		if m != nil {
			base = m[1]
		}
		return m != nil
	})
	for _, c := range []struct {
		path string
		code int
		body string
	}{
		{"/", 200, id},
		{"/run/" + id, 200, "<h2 id=\"summary\">Summary</h2>"},
		{"/run/" + id + "/charts", 200, `"status":"ok"`},
		{"/compare?run=" + id + "&run=" + id, 200, "Comparison (relative to"},
		{"/run/..%2Fetc", 400, `run "../etc": starts with '.'`},
		{"/run/nosuch", 404, `no such run "nosuch"`},
		{"/?since=2026-13-01", 400, `since "2026-13-01": want a date YYYY-MM-DD (UTC)`},
		{"/?label=" + strings.Repeat("x", 70), 400, "label"},
		{"/compare?run=" + id, 400, "a comparison takes 2 to 10 runs (run=ID&run=ID...), got 1"},
		{"/compare?run=" + id + "&run=" + id + "&base=nosuch", 400, "nosuch"},
		{"/other", 404, "not found"},
	} {
		resp, err := http.Get(base + c.path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != c.code || !strings.Contains(string(body), c.body) {
			t.Errorf("GET %s: %d %.200q, want %d and %q", c.path, resp.StatusCode, body, c.code, c.body)
		}
	}
	resp, err := http.Post(base+"/", "text/plain", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("POST /: %d", resp.StatusCode)
	}
}
