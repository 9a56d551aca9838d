// Package ycsbgen holds the key, request and field-length generators of YCSB's core workload: the
// uniform, zipfian, scrambled zipfian, skewed-latest, hotspot, exponential and sequential key
// choosers, the acknowledged insert counter that bounds reads to inserted keys, the weighted
// operation chooser, the FNV-1a key hash and the "user<number>" key names. Each follows the
// definition of YCSB's generator of the same name, draws from a caller-supplied gen.Rand, and
// allocates nothing per draw.
package ycsbgen
