// Package runsummary is what a finished profile or merge says of its run:
// the passes' counts, the failed cells, the --cmd cells, the range methods
// and the warm stage, read from the run's manifest into typed summaries
// that cmd/rooftool prints as a table or JSON (ProfileSummary,
// MergeSummary). It sits beneath launch, which writes the manifests it
// reads and names the warm stage's outcome through WarmLine; under launch it
// imports only cmdprog (the --cmd cells) and runtables (re-ingest).
package runsummary
