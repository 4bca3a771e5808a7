package launch

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/rooftool/rooftool/ingest/rundir"
)

// SMIQuery is the nvidia-smi field list the launcher and doctor read.
const SMIQuery = "name,uuid,driver_version,clocks.sm,clocks.mem,clocks.max.sm,clocks.max.mem,memory.total"

// SMIGPU is one line of nvidia-smi's answer.
type SMIGPU struct {
	rundir.GPUInfo
	Driver string
}

// QueryGPUs runs nvidia-smi --query-gpu=... and parses its CSV.
func QueryGPUs(ctx context.Context, smi string) ([]SMIGPU, error) {
	cctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	out, err := exec.CommandContext(cctx, smi, "--query-gpu="+SMIQuery, "--format=csv,noheader").CombinedOutput()
	if err != nil {
		return nil, fmt.Errorf("%s --query-gpu: %w: %s", smi, err, lastLine(string(out)))
	}
	return ParseSMI(string(out))
}

// ParseSMI parses nvidia-smi --query-gpu=SMIQuery --format=csv,noheader.
func ParseSMI(out string) ([]SMIGPU, error) {
	r := csv.NewReader(strings.NewReader(out))
	r.TrimLeadingSpace = true
	r.FieldsPerRecord = -1
	recs, err := r.ReadAll()
	if err != nil {
		return nil, fmt.Errorf("nvidia-smi output: %w", err)
	}
	var gpus []SMIGPU
	for i, rec := range recs {
		if len(rec) == 1 && strings.TrimSpace(rec[0]) == "" {
			continue
		}
		if len(rec) != 8 {
			return nil, fmt.Errorf("nvidia-smi output line %d: %d fields, want 8 (%s)", i+1, len(rec), SMIQuery)
		}
		g := SMIGPU{Driver: strings.TrimSpace(rec[2])}
		g.Name = strings.TrimSpace(rec[0])
		g.UUID = strings.TrimSpace(rec[1])
		g.SMClockMHz = smiNumber(rec[3])
		g.MemClockMHz = smiNumber(rec[4])
		g.MaxSMClockMHz = smiNumber(rec[5])
		g.MaxMemClockMHz = smiNumber(rec[6])
		if mib := smiNumber(rec[7]); mib > 0 {
			g.MemoryBytes = int64(mib) << 20
		}
		gpus = append(gpus, g)
	}
	if len(gpus) == 0 {
		return nil, fmt.Errorf("nvidia-smi listed no GPU")
	}
	return gpus, nil
}

// smiNumber reads "1980 MHz", "81559 MiB" or "[N/A]" (0).
func smiNumber(s string) float64 {
	f := strings.Fields(strings.TrimSpace(s))
	if len(f) == 0 {
		return 0
	}
	v, err := strconv.ParseFloat(f[0], 64)
	if err != nil {
		return 0
	}
	return v
}

// RunnerEnv is what `run.py env` prints, read loosely: the keys it knows.
type RunnerEnv struct {
	Raw map[string]any
}

// ParseRunnerEnv parses the JSON printed by `run.py env`. Lines before the
// JSON object (warnings) are ignored.
func ParseRunnerEnv(out []byte) (RunnerEnv, error) {
	s := string(out)
	i := strings.Index(s, "{")
	if i < 0 {
		return RunnerEnv{}, fmt.Errorf("run.py env: no JSON object in output: %s", lastLine(s))
	}
	var m map[string]any
	dec := json.NewDecoder(strings.NewReader(s[i:]))
	dec.UseNumber()
	if err := dec.Decode(&m); err != nil {
		return RunnerEnv{}, fmt.Errorf("run.py env: %w", err)
	}
	return RunnerEnv{Raw: m}, nil
}

// String returns the first of keys whose value is a string or number;
// nested objects are searched with "a.b" keys.
func (e RunnerEnv) String(keys ...string) string {
	for _, k := range keys {
		if v, ok := lookup(e.Raw, k); ok {
			switch x := v.(type) {
			case string:
				if x != "" {
					return x
				}
			case json.Number:
				return x.String()
			case bool:
				return strconv.FormatBool(x)
			}
		}
	}
	return ""
}

// Number returns the first of keys whose value is numeric.
func (e RunnerEnv) Number(keys ...string) float64 {
	for _, k := range keys {
		if v, ok := lookup(e.Raw, k); ok {
			switch x := v.(type) {
			case json.Number:
				if f, err := x.Float64(); err == nil {
					return f
				}
			case string:
				if f, err := strconv.ParseFloat(x, 64); err == nil {
					return f
				}
			}
		}
	}
	return 0
}

func lookup(m map[string]any, key string) (any, bool) {
	cur := any(m)
	for _, p := range strings.Split(key, ".") {
		mm, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		if cur, ok = mm[p]; !ok {
			return nil, false
		}
	}
	return cur, true
}

// Versions picks the version strings of the runner's environment.
func (e RunnerEnv) Versions() map[string]string {
	out := map[string]string{}
	for k, keys := range map[string][]string{
		"python":  {"python", "versions.python", "python_version"},
		"torch":   {"torch", "versions.torch", "torch_version"},
		"triton":  {"triton", "versions.triton", "triton_version"},
		"cuda":    {"cuda", "versions.cuda", "cuda_version", "torch_cuda"},
		"driver":  {"driver", "versions.driver", "driver_version"},
		"cutlass": {"cutlass", "versions.cutlass"},
	} {
		if v := e.String(keys...); v != "" {
			out[k] = v
		}
	}
	return out
}

// Fill completes g with the device facts the runner reported.
func (e RunnerEnv) Fill(g *rundir.GPUInfo) {
	if g.Name == "" {
		g.Name = e.String("device", "device_name", "name", "gpu", "device.name")
	}
	if g.SMCount == 0 {
		g.SMCount = int(e.Number("sm_count", "multiprocessor_count", "sms", "device.sm_count"))
	}
	if g.L2Bytes == 0 {
		g.L2Bytes = int64(e.Number("l2_bytes", "l2_cache_size", "l2", "device.l2_bytes"))
	}
	if g.MemoryBytes == 0 {
		g.MemoryBytes = int64(e.Number("memory_bytes", "total_memory", "device.memory_bytes"))
	}
	if g.CC == "" {
		g.CC = e.String("compute_capability", "cc", "capability", "device.compute_capability")
		if g.CC == "" {
			if v, ok := lookup(e.Raw, "compute_capability"); ok {
				if a, ok := v.([]any); ok && len(a) == 2 {
					g.CC = fmt.Sprintf("%v.%v", a[0], a[1])
				}
			}
		}
	}
	if g.SMClockMHz == 0 {
		g.SMClockMHz = e.Number("clocks.sm_mhz", "sm_clock_mhz")
	}
	if g.MemClockMHz == 0 {
		g.MemClockMHz = e.Number("clocks.mem_mhz", "mem_clock_mhz")
	}
}
