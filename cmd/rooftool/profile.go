package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/rooftool/rooftool/launch/runsummary"

	"github.com/spf13/cobra"

	"github.com/rooftool/rooftool/gpu"
	"github.com/rooftool/rooftool/ingest/rundir"
	"github.com/rooftool/rooftool/launch"
	"github.com/rooftool/rooftool/launch/plan"
	"github.com/rooftool/rooftool/launch/rangerule"
	"github.com/rooftool/rooftool/launch/shard"
)

// ProfileOptions are the flags of `rooftool profile`.
type ProfileOptions struct {
	IO           *IO
	GPU          string
	Experiments  []string
	ExpDirs      []string // --experiments: experiment folders outside the repository
	Variants     []string
	Shapes       []string
	OutDir       string
	Resume       bool
	Timeout      time.Duration
	Passes       []string
	NCU, Nsys    string
	NsysLibs     string
	Python       string
	Kernels      string
	Reps         int
	RangeReplays int    // --range-replays
	ReplaysFor   string // --range-replays-for
	RangeProcess string // --range-process
	DefaultOnly  bool
	Sweeps       bool
	NoIngest     bool
	NoCache      bool   // --no-compile-cache
	CompileCache string // --compile-cache: an earlier run's caches seed this run's
	CacheRoot    string // --compile-cache-dir: the run's caches live there (a --gpus run's shards share one)
	NoWarm       bool   // --no-warm
	NoReport     bool
	IngestOnly   bool
	Shard        string   // --shard I/N
	CostsFrom    []string // --costs-from RUN
	GPUs         []string // --gpus 0,1,...: one shard per GPU, then merged
	SerialTime   bool     // --serial-timing
	RemoveParts  bool     // --remove-shards
	Cmd          string   // --cmd: a program of the user's own, profiled in place of the experiments
	Claims       string   // --claims: claims.yaml judging the --cmd program's cells
	passesGiven  bool     // --passes given (a --cmd run otherwise takes cmdprog.Passes)
	costsGiven   bool     // --costs-from given (else the newest committed run on the --gpu kind)
	shardFlags   []string // the flags each --gpus shard gets
	Args         []string // the command line, for the manifest
	Format       string   // table | json: the summary's form
}

func newProfileCmd(io *IO) *cobra.Command {
	opts := &ProfileOptions{IO: io}
	c := &cobra.Command{
		Use:   "profile --gpu GPU [-o RUNDIR]",
		Short: "Run the experiment suite on this GPU: timing, ncu, ncu range and nsys passes",
		Long: `Profile runs every experiment's variants (kernels/<experiment>) through
kernels/run.py: a correctness check, a timing pass (CUDA events, no profiler),
an ncu kernel pass (per-kernel counters), an ncu range pass (DRAM bytes of the
whole NVTX range of a cell, L2 reuse included) and an nsys pass (timeline).
The range pass runs one ncu process per experiment and replay round
(--range-process per-cell: one per cell), replays a range alone where the
shared process gave it partial or below its DRAM floor, replays CUDA-graph variants with
app-range, and checks each range against the cell's kernel pass (L2 bytes and
time): a range replay that fails or covers less than 0.9 of it is replayed
once more with app-range; a cell no method covers is warned about.
Raw exports land in RUNDIR/raw exactly as the profilers wrote them, the tables
in RUNDIR/tables, and RUNDIR/manifest.json records versions, the GPU, clocks
and each cell's status per pass, rewritten after every runner process.

Before any cell, profile checks what its passes need: a GPU (nvidia-smi),
the runner's python with torch (not for --cmd), ncu for the ncu and range
passes, nsys for the nsys pass (--python, --ncu, --nsys, then PATH). Where
any is missing it names each and exits 2 without running anything or making
RUNDIR; rooftool doctor says how to fix each.

A crashing variant, a profiler error or a cell past --timeout marks that cell
failed with the reason and the sweep goes on; Ctrl-C keeps every finished cell
and --resume skips them. When no pass of any cell finishes ok (no GPU, no
profiler, every cell failing) the run directory is kept and the exit status
is 1. By default sweep shapes run under check and timing
only (--sweeps profiles them too, --default-only drops them).

--gpus 0,1,... splits the plan into one shard per GPU, runs a profile
process per GPU at once (CUDA_VISIBLE_DEVICES=<id>, into RUNDIR.gpu-<id>,
log RUNDIR.gpu-<id>.log), merges them into RUNDIR and writes the report;
each merged cell records its GPU. --serial-timing times one GPU at a time.

--shard I/N runs the I-th of N disjoint parts of the planned cells, balanced
by predicted seconds (rooftool plan --shard-count N lists them; the
seconds come from --costs-from, by default the newest committed run on the
--gpu kind); the manifest records the shard and the full plan's hash, and
rooftool merge joins the parts' run directories into one run.

Compiles: before the passes a warm stage compiles the kernels whose
compile would stall a pass (gated_ssm's cutlass-evt EVT GEMMs, each at the
tile its sweep picked for this GPU: kernels/sweeps/picks), one process per
kernel across the host's cores, into the run's compile caches
(RUNDIR/cache: Inductor, Triton, CuTe DSL, quack, cutlass_cppgen), which
every pass and a --resume reuse; a --gpus run warms once in the parent and
its shards share one cache folder, RUNDIR.cache. --compile-cache DIR seeds
the caches from an earlier run's (its directory or cache folder). Each
launch records in the manifest how many entries each cache gained.

--cmd "python my_bench.py ..." profiles a program of your own instead: it
marks each variant's call with the helper rooftool_marks (put on its
PYTHONPATH), a first run of it lists the cells it marks
(experiment/variant/shape), and the timing, ncu, range and nsys passes run it
again; --claims FILE judges its cells (kernels/README.md, "Profile a program
of your own").

The summary (the run directory, the GPU, each pass's cells ok, failed and
skipped, the failed cells with their reasons, the warnings, the report) goes
to stdout as text, or with --format json as one object,
{"rooftool_profile": 1, "run", "gpu", "passes", "failed", "warnings",
"report", ...} (JSON.md); progress goes to stderr either way.`,
		Example: `  rooftool profile --gpu h100
  rooftool profile --gpu h100 --experiment swiglu --passes check,timing
  rooftool profile --gpu h100 -o runs/x --resume
  rooftool profile --gpu h100 --experiments ~/experiments/bias_gelu
  rooftool profile --gpu h100 --shard 1/4 -o runs/part1
  rooftool profile --gpu h100 --gpus 0,1 -o runs/x --serial-timing
  rooftool profile --gpu h100 --cmd "python my_bench.py --size 4096" --claims claims.yaml`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if opts.GPU == "" && !opts.IngestOnly {
				return usageErrorf("profile: --gpu is required (e.g. --gpu h100)")
			}
			if _, err := gpu.Find(opts.GPU); opts.GPU != "" && err != nil {
				return usageErrorf("profile: --gpu %s: %v", opts.GPU, err)
			}
			if opts.DefaultOnly && opts.Sweeps {
				return usageErrorf("profile: --default-only and --sweeps exclude each other")
			}
			opts.Args = os.Args
			opts.costsGiven = c.Flags().Changed("costs-from")
			if err := checkRangeProcess(c, opts); err != nil {
				return err
			}
			if err := checkCmdFlags(c, opts); err != nil {
				return err
			}
			if len(opts.GPUs) > 0 {
				opts.shardFlags = shardFlags(c)
				return runProfileGPUs(c.Context(), opts)
			}
			if opts.SerialTime || opts.RemoveParts {
				return usageErrorf("profile: --serial-timing and --remove-shards go with --gpus")
			}
			return runProfile(c.Context(), opts)
		},
	}
	f := c.Flags()
	f.StringVar(&opts.GPU, "gpu", "", "the GPU this run is meant for: a key or alias of rooftool gpus (h100, h200, h100-pcie, ...); a different device is recorded and warned about")
	f.StringArrayVar(&opts.Experiments, "experiment", nil, "experiment to run (repeatable; default all)")
	f.StringArrayVar(&opts.ExpDirs, "experiments", nil, "experiment folder outside the repository, or a folder of them (repeatable; rooftool new scaffolds one); alone, only these run, with the runner built into rooftool where --kernels has no run.py")
	f.StringArrayVar(&opts.Variants, "variant", nil, "variant to run (repeatable; default all)")
	f.StringArrayVar(&opts.Shapes, "shape", nil, "canonical shape to run, e.g. M=512,N=4096,K=7168 (repeatable; default all)")
	f.StringVarP(&opts.OutDir, "output", "o", "", "run directory (default runs/<date>-<gpu>-<time>)")
	f.BoolVar(&opts.Resume, "resume", false, "continue the run in -o, skipping finished cells")
	f.DurationVar(&opts.Timeout, "timeout", 10*time.Minute, "time limit per cell and pass (one runner process over n cells gets n times it; the cell it is stuck in is marked failed and the rest run again)")
	f.StringSliceVar(&opts.Passes, "passes", rundir.AllPasses, "passes to run: "+strings.Join(rundir.AllPasses, ","))
	f.StringVar(&opts.NCU, "ncu", "", "ncu binary (default: PATH or the usual NVIDIA folders)")
	f.StringVar(&opts.Nsys, "nsys", "", "nsys binary (default: PATH, Nsight Systems, or the copy inside Nsight Compute)")
	f.StringVar(&opts.NsysLibs, "nsys-libs", "", "folder added to nsys' LD_LIBRARY_PATH (default $ROOFTOOL_NSYS_LIBS or .nsysdeps/root/usr/lib/x86_64-linux-gnu)")
	f.StringVar(&opts.Python, "python", "", "Python interpreter for kernels/run.py (default: "+launch.VenvPython+" where scripts/setup.sh made it, else python3)")
	f.StringVar(&opts.Kernels, "kernels", "", kernelsFlagHelp)
	f.IntVar(&opts.Reps, "reps", 0, "timed repetitions per cell (default: the runner's, >= 30)")
	f.IntVar(&opts.RangeReplays, "range-replays", launch.DefaultRangeReplays, "the most ncu range-pass replays of a cell: the DRAM bytes' spread")
	f.StringVar(&opts.ReplaysFor, "range-replays-for", rangerule.ReplaysForDecisions, "which cells get more than one range replay: decisions (a DRAM claim's cells while its value lies within max(5%, 3 x spread) of its threshold, up to --range-replays; METHOD.md) or all (every cell --range-replays times)")
	f.StringVar(&opts.RangeProcess, "range-process", "", "how the range pass groups cells into ncu processes: per-experiment (the default: one process per experiment, replay round and replay method; a cell partial, failed or below its DRAM floor there is replayed alone) or per-cell (one process per cell and replay); every range is checked against its kernel pass either way")
	f.BoolVar(&opts.DefaultOnly, "default-only", false, "run the default grid only, no sweep shapes")
	f.BoolVar(&opts.Sweeps, "sweeps", false, "profile sweep shapes under every pass, not only check and timing")
	f.BoolVar(&opts.NoIngest, "no-ingest", false, "leave RUNDIR/tables unwritten")
	f.BoolVar(&opts.NoCache, "no-compile-cache", false, "give each runner process its own compile caches instead of the run's RUNDIR/cache (Inductor, Triton, CuTe DSL, cutlass_cppgen), shared by every pass")
	f.StringVar(&opts.CompileCache, "compile-cache", "", "seed the run's compile caches from an earlier run's: its run directory or cache folder (RUNDIR/cache, RUNDIR.cache of a --gpus run)")
	f.StringVar(&opts.CacheRoot, "compile-cache-dir", "", "keep the run's compile caches in this folder instead of RUNDIR/cache (the shards of a --gpus run share their parent's RUNDIR.cache)")
	f.BoolVar(&opts.NoWarm, "no-warm", false, "skip the compile stage before the passes (the passes then compile what they run)")
	f.BoolVar(&opts.NoReport, "no-report", false, "do not write report.md, report.json, report.html and plots/ into RUNDIR at the end")
	f.BoolVar(&opts.IngestOnly, "ingest-only", false, "run nothing: rebuild -o RUNDIR/tables from the raw exports its manifest lists")
	f.StringVar(&opts.Shard, "shard", "", "run only the I-th of N parts of the planned cells, e.g. 1/4 (parts balanced by estimated cost; rooftool plan shows them, rooftool merge joins their runs)")
	f.StringArrayVar(&opts.CostsFrom, "costs-from", nil, "earlier run directory whose pass seconds predict each cell for --shard and --gpus (repeatable; default: the newest committed run on the --gpu kind; none: split by shape size)")
	f.StringSliceVar(&opts.GPUs, "gpus", nil, "run the plan on these GPUs of this host at once, e.g. 0,1,2,3 (nvidia-smi's indices) or GPU UUIDs: one shard per GPU, which sees only its GPU (CUDA_VISIBLE_DEVICES=<its UUID>), into RUNDIR.gpu-<id>, then merged into -o RUNDIR")
	f.BoolVar(&opts.SerialTime, "serial-timing", false, "with --gpus: run the shards' timing passes one GPU at a time (they share the host CPU, PCIe and power); other passes run in parallel")
	f.BoolVar(&opts.RemoveParts, "remove-shards", false, "with --gpus: remove the shards' run directories and logs after a successful merge")
	f.StringVar(&opts.Cmd, "cmd", "", "profile this program instead of the experiments: a command line (split into words, no shell) whose cells are the ranges it marks with rooftool_marks")
	f.StringVar(&opts.Claims, "claims", "", "with --cmd: claims.yaml judging the program's cells (without it the report has tables and roofline, no verdicts)")
	f.StringVar(&opts.Format, "format", "table", "summary format: table (text lines) or json (one object on stdout)")
	mustRegisterCompletion(c, "format", completeOneOf(summaryFormats...))
	mustRegisterCompletion(c, "gpu", completeGPU)
	mustRegisterCompletion(c, "experiment", completeExperiments)
	mustRegisterCompletion(c, "variant", completeVariants)
	mustRegisterCompletion(c, "passes", completeListOf(rundir.AllPasses...))
	mustRegisterCompletion(c, "kernels", completeDirs)
	mustRegisterCompletion(c, "experiments", completeDirs)
	return c
}

func runProfile(ctx context.Context, opts *ProfileOptions) error {
	if err := checkSummaryFormat("profile", opts.Format); err != nil {
		return err
	}
	if opts.Reps != 0 && opts.Reps < 30 {
		return usageErrorf("profile: --reps %d: want at least 30", opts.Reps)
	}
	if opts.RangeReplays < 1 {
		return usageErrorf("profile: --range-replays %d: want at least 1", opts.RangeReplays)
	}
	if opts.ReplaysFor != rangerule.ReplaysForAll && opts.ReplaysFor != rangerule.ReplaysForDecisions {
		return usageErrorf("profile: --range-replays-for %q: want %s or %s", opts.ReplaysFor, rangerule.ReplaysForAll, rangerule.ReplaysForDecisions)
	}
	if opts.Timeout <= 0 {
		return usageErrorf("profile: --timeout %s: want a positive duration", opts.Timeout)
	}
	if opts.IngestOnly {
		if opts.OutDir == "" {
			return usageErrorf("profile: --ingest-only needs -o RUNDIR")
		}
		s, warns, err := runsummary.Reingest(opts.OutDir)
		for _, w := range warns {
			fmt.Fprintln(opts.IO.Err, "warning:", w)
		}
		if err != nil {
			return fmt.Errorf("profile --ingest-only %s: %w", opts.OutDir, err)
		}
		text := summaryText(opts.IO, opts.Format)
		fmt.Fprintf(text, "tables: %s\n", s.Tables)
		if !opts.NoReport {
			if s.Report, err = writeRunReport(ctx, opts.IO, opts.OutDir); err != nil {
				return fmt.Errorf("profile: %w", err)
			}
			if s.Report != "" {
				fmt.Fprintf(text, "report: %s\n", s.Report)
			}
		}
		return writeJSONSummary(opts.IO, opts.Format, s)
	}
	var part shard.Part
	if opts.Shard != "" {
		var err error
		if part, err = shard.Parse(opts.Shard); err != nil {
			return usageErrorf("profile: %v", err)
		}
	}
	costs := opts.CostsFrom
	if part.Count > 0 {
		var note string
		costs, note = costsFrom(opts.CostsFrom, opts.costsGiven, opts.GPU)
		fmt.Fprintf(opts.IO.Err, "shard costs: %s (%s)\n", strings.Join(append([]string{}, costs...), ", "), note)
	}
	cfg := launch.Config{
		Shard:           part,
		CostsFrom:       costs,
		CacheRoot:       opts.CacheRoot,
		CompileCache:    opts.CompileCache,
		NoWarm:          opts.NoWarm,
		RunDir:          opts.OutDir,
		KernelsDir:      opts.Kernels,
		Python:          opts.Python,
		GPU:             opts.GPU,
		Experiments:     opts.Experiments,
		ExperimentDirs:  opts.ExpDirs,
		Variants:        opts.Variants,
		Shapes:          opts.Shapes,
		Passes:          opts.Passes,
		Sweeps:          sweepsMode(opts.DefaultOnly, opts.Sweeps),
		Timeout:         opts.Timeout,
		Reps:            opts.Reps,
		RangeReplays:    opts.RangeReplays,
		RangeReplaysFor: opts.ReplaysFor,
		RangeProcess:    opts.RangeProcess,
		NCU:             opts.NCU,
		Nsys:            opts.Nsys,
		NsysLibs:        opts.NsysLibs,
		Resume:          opts.Resume,
		NoIngest:        opts.NoIngest,
		NoCompileCache:  opts.NoCache,
		Command:         opts.Args,
		Version:         version,
		Commit:          buildInfo().Commit,
		Progress:        launch.NewProgress(opts.IO.Err, opts.IO.IsTTY),
		Log:             opts.IO.Err,
	}
	if err := cmdConfig(opts, &cfg); err != nil {
		return err
	}
	m, err := launch.Run(ctx, cfg)
	var ce *plan.ConfigError
	if errors.As(err, &ce) {
		return usageErrorf("profile: %v", ce.Err)
	}
	var pe *launch.PreflightError
	if errors.As(err, &pe) { // what is missing is named before any cell runs
		return usageErrorf("profile: %v", pe)
	}
	if m == nil {
		if err != nil {
			return fmt.Errorf("profile: %w", err)
		}
		return nil
	}
	dir := runDirOf(opts, m)
	s := runsummary.NewProfileSummary(dir, m)
	s.Cmd = runsummary.CmdSummary(opts.Cmd, dir, m)
	text := summaryText(opts.IO, opts.Format)
	s.WriteText(text)
	if err == nil {
		err = runsummary.NothingMeasured(m)
	}
	if !opts.NoIngest && !opts.NoReport && ctx.Err() == nil {
		path, rerr := writeRunReport(ctx, opts.IO, dir)
		if rerr != nil && err == nil {
			err = rerr
		}
		if s.Report = path; path != "" {
			fmt.Fprintf(text, "report: %s\n", path)
		}
	}
	if jerr := writeJSONSummary(opts.IO, opts.Format, s); jerr != nil && err == nil {
		err = jerr
	}
	if err != nil {
		if errors.Is(err, context.Canceled) {
			return fmt.Errorf("profile: interrupted; finished cells are kept: rerun with --resume to continue")
		}
		return fmt.Errorf("profile: %w", err)
	}
	return nil
}

// sweepsMode maps --default-only and --sweeps to a launch sweeps mode.
func sweepsMode(defaultOnly, sweeps bool) string {
	switch {
	case defaultOnly:
		return plan.SweepsNone
	case sweeps:
		return plan.SweepsAll
	}
	return plan.SweepsTiming
}

func runDirOf(opts *ProfileOptions, m *rundir.Manifest) string {
	if opts.OutDir != "" {
		return opts.OutDir
	}
	if d, ok := m.Options["run_dir"]; ok {
		return d
	}
	return "(see runs/)"
}

// checkRangeProcess checks --range-process: per-cell or per-experiment
// ("" where the flag is not given: the run's default).
func checkRangeProcess(c *cobra.Command, opts *ProfileOptions) error {
	switch opts.RangeProcess {
	case launch.RangeProcessPerCell, launch.RangeProcessPerExperiment:
		return nil
	case "":
		if !c.Flags().Changed("range-process") {
			return nil
		}
	}
	return usageErrorf("profile: --range-process %q: want %s or %s", opts.RangeProcess, launch.RangeProcessPerCell, launch.RangeProcessPerExperiment)
}
