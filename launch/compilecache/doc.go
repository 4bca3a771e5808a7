// Package compilecache keeps a run's compile caches: the folders (and
// cutlass_cppgen's database) under the run directory's cache/ that every
// runner process of the run compiles into and loads from, so that a
// kernel built in one pass is not built again in the next. It makes and
// seeds them (from an earlier run's, --compile-cache), gives the
// variables each runner process gets and the manifest options that record
// them, and counts their entries (what each launch added).
//
// The profile runner (launch) calls it for each run and launch, and
// cmd/rooftool for the cache the shards of a --gpus run share. It imports
// plan (ConfigError) and no other package under launch.
package compilecache
