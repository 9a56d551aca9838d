package live_test

import (
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// prometheus is a private Prometheus server (Debian's package, installed by make test) on
// 127.0.0.1, with its own data directory, scraping a relay every second.
type prometheus struct {
	url    string
	relay  *relay // its scrape target, which forwards to the run's endpoint once it is known
	cmd    *exec.Cmd
	exited chan struct{} // closed once the process has ended
	log    string
}

// startPrometheus starts a private Prometheus on a free loopback port with its TSDB in dir
// (empty: a new temporary directory), scraping every second a relay that forwards to the
// endpoint setTarget names; it is stopped when the test ends.
//
// The relay: a target that Prometheus learns while it runs (a file_sd file, a reload) is
// scraped after up to about 10 s (its discovery and scrape managers apply changes every 5 s),
// which misses a short run's first steps; the relay is its one static target from the start
// and passes each scrape to the run's endpoint unchanged once the run has printed its address.
func startPrometheus(t *testing.T, dir string) *prometheus {
	t.Helper()
	bin, err := exec.LookPath("prometheus")
	if err != nil {
		t.Fatal("prometheus not found: make test installs it (apt-get install prometheus)")
	}
	cfgDir := t.TempDir()
	if dir == "" {
		dir = filepath.Join(cfgDir, "data")
	}
	p := &prometheus{relay: startRelay(t), log: filepath.Join(cfgDir, "prometheus.log")}
	cfg := fmt.Sprintf(`global:
  scrape_interval: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: rumbench
    scrape_interval: 1s
    scrape_timeout: 1s
    static_configs:
      - targets: [%q]
`, p.relay.addr)
	cfgFile := filepath.Join(cfgDir, "prometheus.yml")
	if err := os.WriteFile(cfgFile, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	for try := 0; ; try++ {
		port := freePort(t)
		logf, err := os.Create(p.log)
		if err != nil {
			t.Fatal(err)
		}
		p.url = "http://127.0.0.1:" + strconv.Itoa(port)
		p.cmd = exec.Command(bin, "--config.file="+cfgFile, "--storage.tsdb.path="+dir, "--web.listen-address=127.0.0.1:"+strconv.Itoa(port),
			"--storage.tsdb.retention.time=30d", "--log.level=warn")
		p.cmd.Stdout, p.cmd.Stderr = logf, logf
		p.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
		if err := p.cmd.Start(); err != nil {
			t.Fatal(err)
		}
		logf.Close()
		p.exited = make(chan struct{})
		go func(cmd *exec.Cmd, exited chan struct{}) { cmd.Wait(); close(exited) }(p.cmd, p.exited)
		if p.ready(30 * time.Second) {
			break
		}
		p.stop()
		if try == 2 {
			data, _ := os.ReadFile(p.log)
			t.Fatalf("prometheus did not become ready:\n%s", data)
		}
	}
	t.Cleanup(p.stop)
	return p
}

// freePort returns a port free on 127.0.0.1 a moment ago.
func freePort(t *testing.T) int {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// ready waits for the server's readiness endpoint, false when it does not answer in time or
// the process ended (a port taken in the meantime).
func (p *prometheus) ready(limit time.Duration) bool {
	for end := time.Now().Add(limit); time.Now().Before(end); time.Sleep(200 * time.Millisecond) {
		select {
		case <-p.exited:
			return false
		default:
		}
		resp, err := http.Get(p.url + "/-/ready")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return true
			}
		}
	}
	return false
}

// stop ends the server (SIGTERM, then SIGKILL after 10 s).
func (p *prometheus) stop() {
	if p.cmd == nil {
		return
	}
	p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.exited:
	case <-time.After(10 * time.Second):
		p.cmd.Process.Kill()
		<-p.exited
	}
	p.cmd = nil
}

// setTarget makes the relay forward scrapes to the endpoint at addr.
func (p *prometheus) setTarget(addr string) { p.relay.set(addr) }

// relay is an HTTP server on loopback that forwards every request to the address set (503
// before one is set).
type relay struct {
	addr   string
	mu     sync.Mutex
	target *url.URL
}

func startRelay(t *testing.T) *relay {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	r := &relay{addr: ln.Addr().String()}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		r.mu.Lock()
		to := r.target
		r.mu.Unlock()
		if to == nil {
			http.Error(w, "no endpoint yet", http.StatusServiceUnavailable)
			return
		}
		proxy := httputil.NewSingleHostReverseProxy(to)
		proxy.ErrorLog = log.New(io.Discard, "", 0) // the run's end: Prometheus marks the target down
		proxy.ServeHTTP(w, req)
	})}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return r
}

func (r *relay) set(addr string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.target = &url.URL{Scheme: "http", Host: addr}
}

// series is one series of a query's result: its labels and its values (one for an instant
// query, one per step for a range query).
type series struct {
	Metric map[string]string
	Values []float64
}

// apiResult is the data of a query's answer.
type apiResult struct {
	ResultType string            `json:"resultType"`
	Result     []json.RawMessage `json:"result"`
}

// query runs expr at time at (an instant query) or over [from, at] every step (a range query,
// when step > 0) and returns its series.
func (p *prometheus) query(t *testing.T, expr string, from, at time.Time, step time.Duration) []series {
	t.Helper()
	v := url.Values{"query": {expr}}
	path := "/api/v1/query"
	if step > 0 {
		path = "/api/v1/query_range"
		v.Set("start", unix(from))
		v.Set("end", unix(at))
		v.Set("step", strconv.FormatFloat(step.Seconds(), 'f', -1, 64))
	} else {
		v.Set("time", unix(at))
	}
	resp, err := http.PostForm(p.url+path, v)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	var out struct {
		Status string    `json:"status"`
		Error  string    `json:"error"`
		Data   apiResult `json:"data"`
	}
	if err := json.Unmarshal(body, &out); err != nil || out.Status != "success" {
		t.Fatalf("query %s: %s %s (%v)", expr, out.Status, out.Error, err)
	}
	var res []series
	for _, raw := range out.Data.Result {
		var r struct {
			Metric map[string]string `json:"metric"`
			Value  []any             `json:"value"`
			Values [][]any           `json:"values"`
		}
		if err := json.Unmarshal(raw, &r); err != nil {
			t.Fatal(err)
		}
		s := series{Metric: r.Metric}
		if r.Value != nil {
			r.Values = [][]any{r.Value}
		}
		for _, pair := range r.Values {
			f, err := strconv.ParseFloat(pair[1].(string), 64)
			if err != nil {
				t.Fatalf("query %s: value %v: %v", expr, pair[1], err)
			}
			s.Values = append(s.Values, f)
		}
		res = append(res, s)
	}
	return res
}

// one runs an instant query that must return one series and returns its value.
func (p *prometheus) one(t *testing.T, expr string, at time.Time) float64 {
	t.Helper()
	res := p.query(t, expr, time.Time{}, at, 0)
	if len(res) != 1 || len(res[0].Values) != 1 {
		t.Fatalf("query %s: %d series, want 1: %+v", expr, len(res), res)
	}
	return res[0].Values[0]
}

// series returns the label sets of the series match selects between from and to.
func (p *prometheus) series(t *testing.T, match string, from, to time.Time) []map[string]string {
	t.Helper()
	resp, err := http.PostForm(p.url+"/api/v1/series", url.Values{"match[]": {match}, "start": {unix(from)}, "end": {unix(to)}})
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out struct {
		Status string              `json:"status"`
		Error  string              `json:"error"`
		Data   []map[string]string `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || out.Status != "success" {
		t.Fatalf("series %s: %s %s (%v)", match, out.Status, out.Error, err)
	}
	return out.Data
}

// firstScrape returns the time of the first sample of the run's info series.
func (p *prometheus) firstScrape(t *testing.T, runID string, at time.Time) time.Time {
	t.Helper()
	resp, err := http.PostForm(p.url+"/api/v1/query", url.Values{"query": {fmt.Sprintf(`rumbench_run_info{run_id=%q}[1h]`, runID)}, "time": {unix(at)}})
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out struct {
		Data struct {
			Result []struct {
				Values [][]any `json:"values"`
			} `json:"result"`
		} `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || len(out.Data.Result) == 0 || len(out.Data.Result[0].Values) == 0 {
		t.Fatalf("no sample of the run's info (%v)", err)
	}
	sec := out.Data.Result[0].Values[0][0].(float64)
	return time.UnixMilli(int64(sec * 1000))
}

func unix(t time.Time) string { return strconv.FormatFloat(float64(t.UnixMilli())/1e3, 'f', 3, 64) }

// targetUp waits until the server has scraped a target successfully; it returns the last
// answer of its targets API.
func (p *prometheus) targetUp(t *testing.T, limit time.Duration) (bool, string) {
	var body []byte
	for end := time.Now().Add(limit); time.Now().Before(end); time.Sleep(100 * time.Millisecond) {
		resp, err := http.Get(p.url + "/api/v1/targets")
		if err != nil {
			continue
		}
		body, _ = io.ReadAll(resp.Body)
		resp.Body.Close()
		if strings.Contains(string(body), `"health":"up"`) {
			return true, string(body)
		}
	}
	return false, string(body)
}
