package hist

import "testing"

// BenchmarkRecord is the per-operation cost of recording one response time.
func BenchmarkRecord(b *testing.B) {
	h := New()
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		h.Record(int64(i&0xFFFFF) * 97)
	}
}

// BenchmarkSnapshot is the per-tick cost of reading one histogram.
func BenchmarkSnapshot(b *testing.B) {
	h := New()
	for i := 0; i < 100000; i++ {
		h.Record(int64(i) * 1013)
	}
	var s Snapshot
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		h.Snapshot(&s)
	}
}
