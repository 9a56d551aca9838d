// Package lbgen generates LinkBench's social graph and request stream: the configuration with the
// reference's properties and defaults (the upstream LinkBench client, facebookarchive/linkbench,
// and the fork behind the Small Datum reports, mdcallag/linkbench), the out-degree of each node
// from the empirical distribution the reference ships, the links and nodes its loaders write
// (id2, link type, visibility, time, version and payloads of controlled size and
// compressibility), and the requests its requesters issue (the ten operations in the configured
// mix, the id1 access distributions with their blend of correlated and uncorrelated access, the
// id2 choice, the multiget size and the history of the get-links-list pages).
//
// Everything is deterministic given a seed: a Model is built once from a Config and a seed, is
// immutable and safe for concurrent use, and generates any node or link on its own (a link is a
// function of the seed, its id1, link type and position), so loaders may split the work, even
// one node's links, in any way and produce the same graph. Requests are drawn by a Requester,
// one per worker, from a caller-supplied *gen.Rand. No per-draw call allocates.
//
// Where the two reference clients differ, Config says per setting which one a value follows;
// UpstreamConfig and SmallDatumConfig give each one's settings as its clients use them. They
// differ in the out-degree data (DegreeData), the split of a node's links between link types
// and the request id2s (NeverChange), the payload size medians and the mix; everything else
// (id ranges, link types, payload generators, access distributions and blends, multiget
// sizes, history) is common to both. Where both clients do something other than their
// workload file says, the package does what the clients do and says so: the motif buffer is
// 512 bytes (motif_length is never read), link writes blend with the read_uncorr_ settings
// (WriteUncorrFromReadKeys), and the multiget sizes start at 2 (Model.MultigetSize).
//
// The package embeds the out-degree section of each reference's config/Distribution.dat (Apache
// License 2.0, Copyright 2012 Facebook, Inc.), byte for byte and gzipped; see Degrees.
//
// Units: ids are LinkBench's integers (node ids in [StartID1, MaxID1)), times of links are
// milliseconds since the Unix epoch and times of nodes seconds, payload sizes bytes, and the
// operation mix and blends percentages.
package lbgen
