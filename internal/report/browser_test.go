package report_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/rumbench/rumbench/internal/cli"
)

// chromium finds the browser binary; make test installs the Debian package chromium.
func chromium(t *testing.T) string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Fatal("chromium not found: make test installs it (apt-get install chromium)")
	return ""
}

// chartState is what the page reports about one chart.
type chartState struct {
	ID      string `json:"id"`
	Series  []int  `json:"series"`  // data points per series, from echarts' getOption()
	Painted int    `json:"painted"` // canvas pixels drawn (alpha != 0)
	Pixels  int    `json:"pixels"`
}

const inspectJS = `(() => {
  const out = [];
  document.querySelectorAll('.chart').forEach(el => {
    const inst = echarts.getInstanceByDom(el);
    const st = {id: el.id, series: [], painted: 0, pixels: 0};
    if (inst) {
      (inst.getOption().series || []).forEach(s => st.series.push((s.data || []).length));
    }
    const cv = el.querySelector('canvas');
    if (cv) {
      const d = cv.getContext('2d').getImageData(0, 0, cv.width, cv.height).data;
      st.pixels = d.length / 4;
      for (let i = 3; i < d.length; i += 4) if (d[i] !== 0) st.painted++;
    }
    out.push(st);
  });
  return out;
})()`

// TestHTMLInBrowser makes a real tiny run (two repetitions: the interval charts too), opens its report.html in headless Chromium and checks
// that every chart rendered with data and the page logged no error; the screenshot is kept in
// $RUMBENCH_ARTIFACTS (default a new temporary directory).
func TestHTMLInBrowser(t *testing.T) {
	bin := chromium(t)
	out, data := t.TempDir(), t.TempDir()
	var stdout, stderr bytes.Buffer
	code := cli.Main(cli.Env{Stdout: &stdout, Stderr: &stderr, Getenv: os.Getenv, Now: time.Now,
		Args: []string{"run", "--engine", "null,sqlite", "--steps", "l.i0,l.x,qr100", "--rows", "3000",
			"--query-secs", "2", "--repeat", "2", "--out", out, "--data-dir", data, "--quiet"},
		Context: func() (context.Context, context.CancelFunc) { return context.WithCancel(context.Background()) }})
	if code != 0 {
		t.Fatalf("run: exit %d\n%s%s", code, stdout.String(), stderr.String())
	}
	var page string
	for _, l := range strings.Split(stdout.String(), "\n") {
		if p, ok := strings.CutPrefix(l, "report: "); ok {
			page = p
		}
	}
	if page == "" {
		t.Fatalf("run printed no report path:\n%s", stdout.String())
	}
	abs, err := filepath.Abs(page)
	if err != nil {
		t.Fatal(err)
	}

	// Chromium may still write to its profile as it exits: remove it after, tolerating a race.
	profile, err := os.MkdirTemp("", "rumbench-chromium-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		for i := 0; i < 10 && os.RemoveAll(profile) != nil; i++ {
			time.Sleep(100 * time.Millisecond)
		}
	})
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(bin), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun,
		chromedp.UserDataDir(profile), chromedp.WindowSize(1300, 900),
		chromedp.Flag("disable-quic", true), chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-sync", true),
	}
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancel()
	ctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	ctx, cancel = context.WithTimeout(ctx, 90*time.Second)
	defer cancel()

	var mu sync.Mutex
	var consoleErrors []string
	chromedp.ListenTarget(ctx, func(ev any) {
		mu.Lock()
		defer mu.Unlock()
		switch ev := ev.(type) {
		case *runtime.EventConsoleAPICalled:
			if ev.Type == runtime.APITypeError || ev.Type == runtime.APITypeWarning {
				var args []string
				for _, a := range ev.Args {
					args = append(args, string(a.Value)+a.Description)
				}
				consoleErrors = append(consoleErrors, fmt.Sprintf("console.%s: %s", ev.Type, strings.Join(args, " ")))
			}
		case *runtime.EventExceptionThrown:
			consoleErrors = append(consoleErrors, "exception: "+ev.ExceptionDetails.Error())
		}
	})

	var charts []chartState
	var shot []byte
	if err := chromedp.Run(ctx,
		chromedp.Navigate("file://"+abs),
		chromedp.WaitVisible("body > h1", chromedp.ByQuery),
		chromedp.Sleep(300*time.Millisecond), // echarts paints on the next animation frame
		chromedp.Evaluate(inspectJS, &charts),
		chromedp.FullScreenshot(&shot, 100),
	); err != nil {
		t.Fatal(err)
	}

	dir := os.Getenv("RUMBENCH_ARTIFACTS")
	if dir == "" {
		if dir, err = os.MkdirTemp("", "rumbench-artifacts-"); err != nil {
			t.Fatal(err)
		}
	}
	png := filepath.Join(dir, "report.png")
	if err := os.WriteFile(png, shot, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s (%d bytes)", png, len(shot))

	// Three steps × (median and interval of the repetitions, throughput, max response time,
	// percentiles), plus the comparison bars.
	if len(charts) != 13 {
		t.Errorf("%d charts, want 13: %+v", len(charts), charts)
	}
	for _, c := range charts {
		if len(c.Series) == 0 {
			t.Errorf("chart %s has no series", c.ID)
		}
		for i, n := range c.Series {
			if n == 0 {
				t.Errorf("chart %s: series %d has no data", c.ID, i)
			}
		}
		// Axes, labels and lines: a blank canvas paints nothing.
		if c.Pixels == 0 || c.Painted < c.Pixels/200 {
			t.Errorf("chart %s looks blank: %d of %d pixels painted", c.ID, c.Painted, c.Pixels)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	for _, e := range consoleErrors {
		t.Errorf("page logged %s", e)
	}
}
