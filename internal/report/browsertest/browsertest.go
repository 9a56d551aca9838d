// Package browsertest is what the tests of rumbench's web pages share: headless Chromium
// (Debian's package, installed by make test) driven through chromedp, the page's console
// errors collected, and a script that reports each echarts chart's data and paint.
package browsertest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// Chromium returns the browser binary; the test fails without one.
func Chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Fatal("chromium not found: make test installs it (apt-get install chromium)")
	return ""
}

// Console collects what pages log as errors or warnings, and the exceptions they throw.
type Console struct {
	mu     sync.Mutex
	errors []string
}

// Errors returns what was collected so far.
func (c *Console) Errors() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.errors...)
}

// New starts a headless Chromium (a profile of its own, removed after the test; no network
// services of its own) and returns a chromedp context on a tab of it, ended after limit, with
// the tab's console collected.
func New(t *testing.T, limit time.Duration) (context.Context, *Console) {
	t.Helper()
	bin := Chromium(t)
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
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelTab := chromedp.NewContext(actx)
	ctx, cancelTime := context.WithTimeout(ctx, limit)
	t.Cleanup(func() { cancelTime(); cancelTab(); cancelAlloc() })
	c := &Console{}
	chromedp.ListenTarget(ctx, func(ev any) {
		c.mu.Lock()
		defer c.mu.Unlock()
		switch ev := ev.(type) {
		case *runtime.EventConsoleAPICalled:
			if ev.Type == runtime.APITypeError || ev.Type == runtime.APITypeWarning {
				var args []string
				for _, a := range ev.Args {
					args = append(args, string(a.Value)+a.Description)
				}
				c.errors = append(c.errors, fmt.Sprintf("console.%s: %s", ev.Type, strings.Join(args, " ")))
			}
		case *runtime.EventExceptionThrown:
			c.errors = append(c.errors, "exception: "+ev.ExceptionDetails.Error())
		}
	})
	return ctx, c
}

// ChartState is what a page reports about one chart (InspectJS).
type ChartState struct {
	ID      string `json:"id"`
	Series  []int  `json:"series"`  // data points per series, from echarts' getOption()
	Painted int    `json:"painted"` // canvas pixels drawn (alpha != 0)
	Pixels  int    `json:"pixels"`
}

// InspectJS returns a []ChartState of the page's .chart elements.
const InspectJS = `(() => {
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
