package launch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/rooftool/rooftool/ingest/rundir"
)

// TimingLockEnv names a lock file that a profile process holds while its
// timing pass runs (flock), so that processes sharing one host time their
// cells one at a time (rooftool profile --gpus --serial-timing). The name
// lacks the ROOFTOOL_ prefix so that the manifest does not record it as a
// knob of the measured code.
const TimingLockEnv = "RT_TIMING_LOCK"

// Timing modes recorded as the manifest option "timing".
const (
	TimingParallel = "parallel"
	TimingSerial   = "serial"
)

// lockTiming takes the lock TimingLockEnv names, if any, and returns its
// release.
func lockTiming() (func(), error) {
	p := os.Getenv(TimingLockEnv)
	if p == "" {
		return func() {}, nil
	}
	f, err := os.OpenFile(p, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, fmt.Errorf("timing lock: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, fmt.Errorf("timing lock %s: %w", p, err)
	}
	return func() {
		syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}

// MultiGPUConfig describes rooftool profile --gpus: one shard of the plan
// per GPU, each a profile process of its own.
type MultiGPUConfig struct {
	Exe  string   // the rooftool binary to run
	GPUs []string // nvidia-smi indices or GPU UUIDs, one per shard
	SMI  string   // nvidia-smi (""; found on PATH), to name each index's UUID
	Out  string   // the merged run; shard I runs into ShardDir(Out, GPUs[I-1])
	// Args are the profile flags every shard gets, without -o, --shard
	// and --gpus.
	Args         []string
	SerialTiming bool
	Env          []string // the processes' environment (nil: os.Environ())
	Log          io.Writer
}

// ShardDir is the run directory of the shard that runs on gpu.
func ShardDir(out, gpu string) string {
	return strings.TrimRight(out, string(filepath.Separator)) + ".gpu-" + gpu
}

// GPUShard is the outcome of one shard process.
type GPUShard struct {
	GPU   string
	Shard string // "I/N"
	Dir   string // its run directory
	Log   string // its stdout and stderr
	Err   error
}

// RunMultiGPU runs one `profile --shard I/N` process per GPU at once, each
// with CUDA_VISIBLE_DEVICES set to its GPU, and waits for all. Each shard's
// manifest then records its GPU (option rundir.OptionGPUIndex) and how
// timing ran (option "timing"), for shard.Merge. The error names every shard
// that failed and its log; the shards' directories are kept either way.
func RunMultiGPU(ctx context.Context, cfg MultiGPUConfig) ([]GPUShard, error) {
	if len(cfg.GPUs) == 0 {
		return nil, configErrorf("--gpus: no GPU named")
	}
	seen := map[string]bool{}
	for _, g := range cfg.GPUs {
		if g == "" || strings.ContainsAny(g, ",/ ") {
			return nil, configErrorf("--gpus: bad GPU %q: want indices or UUIDs separated by commas", g)
		}
		if seen[g] {
			return nil, configErrorf("--gpus: GPU %s named twice", g)
		}
		seen[g] = true
	}
	env := cfg.Env
	if env == nil {
		env = os.Environ()
	}
	uuids, err := gpuUUIDs(ctx, cfg.SMI, cfg.GPUs)
	if err != nil {
		return nil, err
	}
	timing := TimingParallel
	var lock string
	if cfg.SerialTiming {
		timing = TimingSerial
		if err := os.MkdirAll(filepath.Dir(filepath.Clean(cfg.Out)), 0o755); err != nil {
			return nil, err
		}
		lock = strings.TrimRight(cfg.Out, string(filepath.Separator)) + ".timing.lock"
		defer os.Remove(lock)
	}
	n := len(cfg.GPUs)
	shards := make([]GPUShard, n)
	var wg sync.WaitGroup
	var logMu sync.Mutex
	for i, g := range cfg.GPUs {
		s := &shards[i]
		s.GPU, s.Shard, s.Dir = g, fmt.Sprintf("%d/%d", i+1, n), ShardDir(cfg.Out, g)
		s.Log = s.Dir + ".log"
		args := append([]string{"profile"}, cfg.Args...)
		args = append(args, "--shard", s.Shard, "-o", s.Dir)
		cmd := exec.CommandContext(ctx, cfg.Exe, args...)
		// Interrupted, a shard stops as at Ctrl-C: its finished cells are
		// written for --resume.
		cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
		cmd.WaitDelay = time.Minute
		// The shard sees its GPU by UUID: an index means nvidia-smi's
		// numbering (PCI order), which CUDA's own order need not follow.
		cmd.Env = append(withoutEnv(env, "CUDA_VISIBLE_DEVICES", "CUDA_DEVICE_ORDER", TimingLockEnv),
			"CUDA_VISIBLE_DEVICES="+uuids[i], "CUDA_DEVICE_ORDER=PCI_BUS_ID")
		if lock != "" {
			cmd.Env = append(cmd.Env, TimingLockEnv+"="+lock)
		}
		if err := os.MkdirAll(filepath.Dir(filepath.Clean(s.Log)), 0o755); err != nil {
			return nil, err
		}
		f, err := os.Create(s.Log)
		if err != nil {
			return nil, err
		}
		cmd.Stdout, cmd.Stderr = f, f
		if cfg.Log != nil {
			fmt.Fprintf(cfg.Log, "shard %s on GPU %s (%s): %s (log %s)\n", s.Shard, g, uuids[i], s.Dir, s.Log)
		}
		if err := cmd.Start(); err != nil {
			f.Close()
			s.Err = err
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.Err = cmd.Wait()
			f.Close()
			if err := markShard(s.Dir, g, timing); err != nil && s.Err == nil {
				s.Err = err
			}
			if cfg.Log != nil {
				logMu.Lock()
				if s.Err != nil {
					fmt.Fprintf(cfg.Log, "shard %s on GPU %s failed: %v (log %s)\n", s.Shard, g, s.Err, s.Log)
				} else {
					fmt.Fprintf(cfg.Log, "shard %s on GPU %s done\n", s.Shard, g)
				}
				logMu.Unlock()
			}
		}()
	}
	wg.Wait()
	var errs []error
	for _, s := range shards {
		if s.Err != nil {
			errs = append(errs, fmt.Errorf("shard %s on GPU %s (%s) failed: %v; log: %s", s.Shard, s.GPU, s.Dir, s.Err, s.Log))
		}
	}
	return shards, errors.Join(errs...)
}

// gpuUUIDs names each --gpus entry by its UUID: an entry that is one
// ("GPU-..." or "MIG-...") as given, an index as nvidia-smi lists it (its
// lines are in index order). Without nvidia-smi the entries are kept as
// given, and each shard's runner then names its device by the UUID its
// CUDA context reports.
func gpuUUIDs(ctx context.Context, smi string, entries []string) ([]string, error) {
	isUUID := func(g string) bool { return strings.HasPrefix(g, "GPU-") || strings.HasPrefix(g, "MIG-") }
	need := false
	for _, g := range entries {
		need = need || !isUUID(g)
	}
	if !need {
		return entries, nil
	}
	if smi == "" {
		var err error
		if smi, err = FindSMI(); err != nil {
			return entries, nil
		}
	}
	gpus, err := QueryGPUs(ctx, smi)
	if err != nil {
		return nil, fmt.Errorf("--gpus: naming the GPUs by UUID: %w", err)
	}
	out := make([]string, len(entries))
	for i, g := range entries {
		if isUUID(g) {
			out[i] = g
			continue
		}
		n, err := strconv.Atoi(g)
		if err != nil || n < 0 || n >= len(gpus) {
			return nil, configErrorf("--gpus: GPU %q: want an nvidia-smi index 0-%d or a GPU UUID", g, len(gpus)-1)
		}
		out[i] = gpus[n].UUID
	}
	seen := map[string]string{}
	for i, u := range out {
		if prev, ok := seen[u]; ok {
			return nil, configErrorf("--gpus: %s and %s are the same GPU (%s)", prev, entries[i], u)
		}
		seen[u] = entries[i]
	}
	return out, nil
}

// markShard records in a shard's manifest the GPU it ran on and how
// timing ran; a shard that wrote no manifest is left alone.
func markShard(dir, gpu, timing string) error {
	m, err := rundir.ReadManifest(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if m.Options == nil {
		m.Options = map[string]string{}
	}
	m.Options[rundir.OptionGPUIndex] = gpu
	m.Options["timing"] = timing
	return m.Write(dir)
}

// withoutEnv drops the named variables from env.
func withoutEnv(env []string, names ...string) []string {
	var out []string
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		drop := false
		for _, n := range names {
			drop = drop || k == n
		}
		if !drop {
			out = append(out, kv)
		}
	}
	return out
}
