// Package rangerule holds the rules the profile runner's range pass
// (launch, rangepass.go and rangefloor.go) applies to what ncu measured:
// the replay rule of --range-replays-for (which cells are replayed again
// while a range-decided claim lies near its threshold, METHOD.md "Replays
// where a verdict can turn"), the coverage of a range against the same
// cell's kernel pass and the warning for a range no replay method measured
// completely, the metrics those read, and the DRAM bytes and warning code
// of the range's DRAM floor.
//
// It reads sums of ncu metrics (package ncu sums them from the CSVs),
// range decisions (package spec) and pass statuses (ingest/rundir), and
// gives decisions and words; it runs nothing and reads no file. launch
// imports it, and cmd/rooftool names its --range-replays-for values; it
// imports no other package under launch.
package rangerule
