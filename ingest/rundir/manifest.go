package rundir

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/rooftool/rooftool/cellkey"
)

// Status of a cell's pass.
const (
	StatusOK      = "ok"
	StatusFailed  = "failed"
	StatusSkipped = "skipped"
)

// Pass names.
const (
	PassCheck  = "check"
	PassTiming = "timing"
	PassNCU    = "ncu"
	PassRange  = "range"
	PassNsys   = "nsys"
)

// AllPasses in run order.
var AllPasses = []string{PassCheck, PassTiming, PassNCU, PassRange, PassNsys}

// Manifest is manifest.json of a run directory.
type Manifest struct {
	Tool         string            `json:"tool"` // "rooftool"
	Version      string            `json:"version"`
	Command      []string          `json:"command"`
	Created      time.Time         `json:"created"`
	Finished     time.Time         `json:"finished,omitzero"`
	GitCommit    string            `json:"git_commit,omitempty"`
	GPURequested string            `json:"gpu_requested,omitempty"` // the --gpu flag
	GPU          GPUInfo           `json:"gpu"`
	Versions     map[string]string `json:"versions"` // python, torch, triton, cuda, driver, ncu, nsys
	Passes       []string          `json:"passes"`
	// Shard is "I/N" for a run of the I-th of N parts of a sweep
	// (rooftool profile --shard); PlanHash identifies the full plan the
	// parts were cut from, so that merge can tell they belong together.
	Shard    string `json:"shard,omitempty"`
	PlanHash string `json:"plan_hash,omitempty"`
	// MergedFrom names the shard runs a merged run was made of.
	MergedFrom []MergedPart      `json:"merged_from,omitempty"`
	Options    map[string]string `json:"options,omitempty"` // e.g. ncu clock-control, reps
	Cells      []Cell            `json:"cells"`
	// Resumed lists the later invocations that continued this run
	// (--resume); Command stays the first one's.
	Resumed  []Invocation `json:"resumed,omitempty"`
	Warnings []string     `json:"warnings,omitempty"`
	// TableDigests is the SHA-256 of each file ingest wrote into TablesDir
	// (TableDigests); absent in runs ingested before it was recorded.
	TableDigests map[string]string `json:"table_digests,omitempty"`
	// Launches are the pass launches in the order they ran, with their
	// wall time; absent in runs made before they were recorded.
	Launches []Launch `json:"launches,omitempty"`
	// IngestSeconds is the wall time of the last ingest of the raw
	// exports into tables by rooftool profile (0: not recorded).
	IngestSeconds float64 `json:"ingest_seconds,omitempty"`
	// Warm is the compile stage that ran before the passes (one per host:
	// a --gpus run's parent records it in the merged run); nil where none ran.
	Warm *Warm `json:"warm,omitempty"`
}

// Warm is the launcher's compile stage: kernels compiled, without being
// measured, into the run's compile cache before the first pass, side by
// side in Processes processes.
type Warm struct {
	Seconds   float64  `json:"seconds"`             // wall time of the stage
	Kernels   int      `json:"kernels"`             // kernels the planned cells measure
	Compiled  int      `json:"compiled"`            // of them, new in the cache (the rest were found there)
	Processes int      `json:"processes,omitempty"` // compile processes, run side by side
	Failed    []string `json:"failed,omitempty"`    // kernels that did not compile (their cells compile them in the passes)
	Skipped   string   `json:"skipped,omitempty"`   // why nothing was compiled
}

// Launch is one launch of a pass over cells of one experiment: one runner
// process (under ncu or nsys for the profiling passes, whose export after
// it counts too), or for a range cell its replay processes in turn.
type Launch struct {
	Pass       string  `json:"pass"`
	Experiment string  `json:"experiment"`
	Cells      int     `json:"cells"`   // cells it was launched for
	Seconds    float64 `json:"seconds"` // wall time, launch to the last export
	// StartupSeconds is the time from the launch until the runner began
	// its first cell (interpreter and profiler start, imports); 0 where
	// not measured (range launches, runners that do not report it).
	StartupSeconds float64 `json:"startup_seconds,omitempty"`
	// CacheAdded is how many entries each compile cache (launch's cache
	// names: inductor, triton, cute, quack, cutlass) gained during the
	// launch; a cache that gained none is left out, and a launch whose
	// caches gained nothing compiled nothing new (nil in runs that did
	// not count them, or ran without the run's caches).
	CacheAdded map[string]int `json:"cache_added,omitempty"`
}

// MergedPart is one run a merged run was made of.
type MergedPart struct {
	Run     string       `json:"run"` // its folder's base name
	Shard   string       `json:"shard,omitempty"`
	Command []string     `json:"command"`
	Created time.Time    `json:"created"`
	Resumed []Invocation `json:"resumed,omitempty"`  // the part's own --resume invocations
	GPUUUID string       `json:"gpu_uuid,omitempty"` // the device the part began on
	// Files is the SHA-256 (hex) of every raw file the part's manifest
	// names that the merge copied, by the path the merged manifest names
	// it under, of its bytes as ingest reads them (a gzipped file's
	// content): what a check of the merge compares the run with once
	// the shards are gone (shard.CheckMerged, launch/shard).
	Files map[string]string `json:"files,omitempty"`
	// PredictedSeconds is the part's passes as the shard plan predicted
	// them; Seconds its launches' measured seconds together (0: not
	// recorded, a merge not made by profile --gpus).
	PredictedSeconds float64 `json:"predicted_seconds,omitempty"`
	Seconds          float64 `json:"seconds,omitempty"`
}

// Invocation is one command that worked on a run directory.
type Invocation struct {
	Command []string  `json:"command"`
	Started time.Time `json:"started"`
	GPU     string    `json:"gpu,omitempty"`      // the device it ran on, when it differs from GPU.Name
	GPUUUID string    `json:"gpu_uuid,omitempty"` // the unit it ran on, when it differs from GPU.UUID
}

// GPUInfo is the device the run really ran on.
type GPUInfo struct {
	Name           string  `json:"name"` // e.g. "NVIDIA H100 80GB HBM3"
	UUID           string  `json:"uuid,omitempty"`
	SMCount        int     `json:"sm_count,omitempty"`
	L2Bytes        int64   `json:"l2_bytes,omitempty"`
	MemoryBytes    int64   `json:"memory_bytes,omitempty"`
	CC             string  `json:"compute_capability,omitempty"`
	SMClockMHz     float64 `json:"sm_clock_mhz,omitempty"`  // as read during the run
	MemClockMHz    float64 `json:"mem_clock_mhz,omitempty"` // as read during the run
	MaxSMClockMHz  float64 `json:"max_sm_clock_mhz,omitempty"`
	MaxMemClockMHz float64 `json:"max_mem_clock_mhz,omitempty"`
}

// Cell is one (experiment, variant, shape) and the status of each pass.
type Cell struct {
	Experiment string                `json:"experiment"`
	Variant    string                `json:"variant"`
	Shape      string                `json:"shape"`
	Passes     map[string]PassStatus `json:"passes"`
	// GPU is the device the cell ran on, where a merged run's parts ran
	// on different devices of one host (rooftool profile --gpus).
	GPU *CellGPU `json:"gpu,omitempty"`
}

// CellGPU is the device one cell of a merged run ran on.
type CellGPU struct {
	Index string `json:"index,omitempty"` // the CUDA_VISIBLE_DEVICES entry its part ran under
	UUID  string `json:"uuid,omitempty"`
	Name  string `json:"name,omitempty"`
}

// OptionGPUIndex is the manifest option rooftool profile --gpus records in
// each part's run: the CUDA_VISIBLE_DEVICES entry the part ran under.
const OptionGPUIndex = "gpu_index"

// PassStatus is the outcome of one pass of one cell.
type PassStatus struct {
	Status string `json:"status"` // ok | failed | skipped
	Reason string `json:"reason,omitempty"`
	// GPUUUID names the unit the pass ran on where a resumed run measured it
	// on another unit than the one it began on (GPUInfo.UUID); empty: that one.
	GPUUUID string   `json:"gpu_uuid,omitempty"`
	Files   []string `json:"files,omitempty"` // raw exports, relative to the run directory
	// Seconds is the cell's share of the wall time of the launch that ran
	// it (Launch): the launch's seconds divided evenly over SharedBy cells.
	Seconds float64 `json:"seconds,omitempty"`
	// SharedBy is the number of cells the launch's seconds were divided
	// over (1: the launch ran this cell alone); 0 in runs made before it
	// was recorded, where check, timing, ncu and nsys divided one process
	// per experiment and range ran a process per cell.
	SharedBy int `json:"shared_by,omitempty"`
	// CellSeconds is what the runner measured for this cell inside its
	// process: from the cell's start (check, compile, warm-up) to its
	// JSON written; 0 where the runner did not report it. It leaves out the
	// process's start and, under a profiler, the export after it.
	CellSeconds float64 `json:"cell_seconds,omitempty"`
	// Kernels lists the kernels (or ranges) ncu profiled for this cell and
	// how many replay passes each needed; for an nsys pass the kernels it
	// traced in the cell's range (ID: CUDA correlation id, Passes 0).
	Kernels []KernelReplay `json:"kernels,omitempty"`
	// Attempts counts the runner processes this pass took for the cell
	// (a crash or timeout of a shared process re-launches the rest).
	Attempts int `json:"attempts,omitempty"`
	// Code is what the runner reported running for this cell in this pass:
	// the knobs and implementation picks in effect (absent in runs made
	// before the runner reported it).
	Code *Code `json:"code,omitempty"`
	// Method is how an ncu pass replayed the cell: "kernel", "range",
	// "app-range" or "graph" (ncu --graph-profiling graph).
	Method string `json:"method,omitempty"`
	// Coverage compares a range pass with the same cell's kernel pass
	// (range passes only, when the kernel pass had run).
	Coverage *Coverage `json:"coverage,omitempty"`
	// Replays are a range pass's replays of the cell, each its own ncu
	// process (OptionRangeReplays of them); Files, Method and Coverage
	// above are the first ok replay's. Absent in runs that replayed each
	// cell once.
	Replays []RangeReplay `json:"replays,omitempty"`
	// ReplayReason says why a range pass replayed the cell as many times
	// as Replays holds (launch, METHOD.md "Replays where a verdict
	// can turn"): "first", "near threshold ...", "clear of threshold after
	// N ...". Absent in runs made before the rule.
	ReplayReason string `json:"replay_reason,omitempty"`
	// Process says which ncu process gave a range pass its result, as
	// Method does (ProcessShared, ProcessAlone, ProcessRetriedAlone);
	// absent in runs made before it was recorded, where rooftool's own
	// experiments ran alone.
	Process string `json:"process,omitempty"`
	// DRAMFloor is a range pass's DRAM bytes checked against the cell's
	// kernel pass and the copies nsys saw in its range (DRAMFloor); set
	// once the nsys pass ran. Absent where not checked.
	DRAMFloor *DRAMFloor `json:"dram_floor,omitempty"`
}

// Which ncu process measured a cell's range (PassStatus.Process).
const (
	ProcessShared       = "shared"        // one process over the round's cells of one replay method
	ProcessAlone        = "alone"         // a process of this cell only
	ProcessRetriedAlone = "retried-alone" // alone, after the shared process gave it partial or failed
	// ProcessReplayedAlone: alone, after the shared process's range fell
	// below the cell's DRAM floor (PassStatus.DRAMFloor).
	ProcessReplayedAlone = "replayed-alone"
)

// RangeReplay is one replay of a cell's range pass.
type RangeReplay struct {
	Replay   int       `json:"replay"` // 1-based
	Status   string    `json:"status"` // ok | failed
	Reason   string    `json:"reason,omitempty"`
	Method   string    `json:"method,omitempty"`
	Files    []string  `json:"files,omitempty"` // the cell's CSV first, as PassStatus.Files
	Coverage *Coverage `json:"coverage,omitempty"`
	Process  string    `json:"process,omitempty"` // as PassStatus.Process
}

// OptionRangeReplays is the manifest option holding how many times the
// range pass replays each cell at most (rooftool profile --range-replays);
// absent: once.
const OptionRangeReplays = "ncu.range_replays"

// OptionRangeReplaysFor is the manifest option naming which cells got
// OptionRangeReplays replays: "all" (every cell), or "decisions" (each cell
// once, then the cells of a range-decided claim whose value lies near its
// threshold again, up to OptionRangeReplays; runs made before that rule
// replayed those cells OptionRangeReplays times, the others once).
const OptionRangeReplaysFor = "ncu.range_replays_for"

// OptionRangeProcess is the manifest option saying how the range pass
// grouped cells into ncu processes (rooftool profile --range-process): its
// value begins with the mode, "per-cell" or "per-experiment".
const OptionRangeProcess = "ncu.range_process"

// Code is what one pass of a cell ran: every environment knob that changes
// the measured code (with its effective value), the implementation picks
// (tile, load path, persistent or not) and the Triton launch path.
type Code struct {
	Knobs  map[string]string `json:"knobs,omitempty"`
	Picks  map[string]string `json:"picks,omitempty"`
	Launch string            `json:"launch,omitempty"` // "plan" | "triton-dispatch"
}

// KernelReplay is one profiled kernel (or NVTX range) of an ncu pass.
type KernelReplay struct {
	ID     int    `json:"id"`     // ncu's result ID in the export
	Name   string `json:"name"`   // kernel name as ncu printed it ("range" for range replay)
	Passes int    `json:"passes"` // replay passes ncu needed, 0 if it did not say
}

// Key identifies the cell.
func (c Cell) Key() cellkey.Key { return cellkey.New(c.Experiment, c.Variant, c.Shape) }

// Cell returns the named cell, adding it if absent.
func (m *Manifest) Cell(exp, variant, shape string) *Cell {
	for i := range m.Cells {
		c := &m.Cells[i]
		if c.Experiment == exp && c.Variant == variant && c.Shape == shape {
			return c
		}
	}
	m.Cells = append(m.Cells, Cell{Experiment: exp, Variant: variant, Shape: shape, Passes: map[string]PassStatus{}})
	return &m.Cells[len(m.Cells)-1]
}

// Pass returns the status of one pass of a cell, and whether it was recorded.
func (m *Manifest) Pass(exp, variant, shape, pass string) (PassStatus, bool) {
	for i := range m.Cells {
		c := &m.Cells[i]
		if c.Experiment == exp && c.Variant == variant && c.Shape == shape {
			st, ok := c.Passes[pass]
			return st, ok
		}
	}
	return PassStatus{}, false
}

// SetPass records the status of one pass of a cell, adding the cell if absent.
func (m *Manifest) SetPass(exp, variant, shape, pass string, st PassStatus) {
	c := m.Cell(exp, variant, shape)
	if c.Passes == nil {
		c.Passes = map[string]PassStatus{}
	}
	c.Passes[pass] = st
}

// ReadManifest reads dir/manifest.json.
func ReadManifest(dir string) (*Manifest, error) {
	return readManifestFS(os.DirFS(dir), filepath.Join(dir, ManifestFile))
}

// readManifestFS reads ManifestFile from fsys; name is how errors call it.
func readManifestFS(fsys fs.FS, name string) (*Manifest, error) {
	p := name
	data, err := fs.ReadFile(fsys, ManifestFile)
	if err != nil {
		return nil, err
	}
	var m Manifest
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	return &m, nil
}

// Write writes dir/manifest.json atomically (temp file, then rename), cells sorted.
func (m *Manifest) Write(dir string) error {
	sort.SliceStable(m.Cells, func(i, j int) bool { return m.Cells[i].Key().Less(m.Cells[j].Key()) })
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	return WriteFileAtomic(filepath.Join(dir, ManifestFile), append(data, '\n'))
}
