// Package kineto reads Kineto (PyTorch profiler) Chrome traces into
// rooftool's tables (the ingest core): the JSON object or bare event array,
// plain or gzipped, streamed in bounded memory. It gives a kernels row per
// kernel event, attributed to the innermost user annotation around its
// launching runtime call (else the GPU annotation around it), the
// annotations as ranges rows, the GPUs (deviceProperties) and the trace's
// metadata; kineto.go says how.
//
// ingest/detect calls Parse for the traces it names Kineto's. The package
// imports the ingest core and ingest/internal/callindex, and no other
// format's package.
package kineto
