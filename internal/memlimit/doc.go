// Package memlimit keeps rooftool inside a memory limit: it sets the Go
// runtime's memory limit (GOMEMLIMIT where it is set, else 3/4 of the
// least of the machine's memory, the cgroup's limit and ulimit -v) and
// watches the heap against it, so that an input too large for the machine
// ends with a message instead of the runtime's "fatal error: out of
// memory" or a kill by the kernel. cmd/rooftool starts the watch; what it
// does past the limit (the message, the exit status) is the command's.
//
// It is a leaf package: it imports no other package of rooftool.
package memlimit
