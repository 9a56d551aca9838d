package lbgen_test

import (
	"fmt"

	"github.com/rumbench/rumbench/internal/gen"
	"github.com/rumbench/rumbench/internal/workload/linkbench/lbgen"
)

// A loader takes tasks from a LoadPlan and writes each node's links and count rows; a
// requester draws requests and reports get-links-list results back.
func Example() {
	cfg := lbgen.SmallDatumConfig()
	cfg.MaxID1 = 1001
	m, err := lbgen.NewModel(cfg, 42)
	if err != nil {
		panic(err)
	}
	const now = 1_700_000_000_000 // milliseconds

	// Load: the one node of 4,181,357 links is cut into slices of at most 1M links.
	plan := m.LoadPlan(2048, 1_000_000)
	var link lbgen.Link
	buf := make([]byte, lbgen.MaxLinkData)
	var links, slices int64
	for _, task := range plan.Tasks {
		if task.Slice {
			slices++
			links += task.To - task.From // a loader would generate them with m.Link as below
			continue
		}
		for id1 := task.Lo; id1 < task.Hi; id1++ {
			if plan.Sliced(id1) {
				continue
			}
			for t := range cfg.LinkTypeCount {
				for j := range m.LinkCount(id1, t) {
					m.Link(&link, id1, t, j, now, buf) // insert link; count row: LinkCount, max time
					links++
				}
			}
		}
	}
	fmt.Println("links:", links, "slices:", slices)

	// Requests.
	q, _ := m.NewRequester(0, 1)
	r := gen.NewRand(7)
	var req lbgen.Request
	q.Next(&r, &req)
	if req.Op == lbgen.OpGetLinkList {
		q.LinkListDone(&r, &req, 0, 0) // the rows returned and the oldest time
	}
	fmt.Println("first request:", req.Op)
	// Output:
	// links: 4184340 slices: 6
	// first request: GET_LINKS_LIST
}
